import { execFileSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { readFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';

/**
 * A private tmux server for one test: `tmux -L <unique> -f /dev/null`. Tests never touch the
 * default server or a socket they did not create, and kill their own server in teardown.
 */
export class TestTmux {
  readonly socketName: string;
  constructor(prefix = 'rdt') {
    this.socketName = `${prefix}-${process.pid}-${randomBytes(4).toString('hex')}`;
  }
  run(args: string[], opts: { input?: string; env?: NodeJS.ProcessEnv } = {}): string {
    return execFileSync('tmux', ['-L', this.socketName, '-f', '/dev/null', ...args], {
      encoding: 'utf8',
      input: opts.input,
      env: opts.env ?? cleanTmuxEnv(),
      stdio: ['pipe', 'pipe', 'pipe'],
    });
  }
  tryRun(args: string[]): { ok: boolean; out: string } {
    try {
      return { ok: true, out: this.run(args) };
    } catch (e) {
      return { ok: false, out: String((e as { stderr?: unknown }).stderr ?? e) };
    }
  }
  /** Starts a detached session running argv (no shell string) and returns its pane's pid. */
  newSession(
    name: string,
    argv: string[],
    opts: { cwd?: string; env?: Record<string, string> } = {},
  ): { sessionId: string; paneId: string; panePid: number } {
    return printedPane(this.run([...newPaneArgv(name, opts.cwd, opts.env ?? {}), ...argv]));
  }
  capture(target: string): string {
    return this.run(['capture-pane', '-p', '-t', target]);
  }
  serverPid(): number | undefined {
    const r = this.tryRun(['display-message', '-p', '#{pid}']);
    return r.ok ? Number(r.out.trim()) : undefined;
  }
  /**
   * Kills this test's own server and removes its socket file (tmux 3.3a leaves it behind). A server
   * that outlives its kill-server (seen on a loaded machine, its socket then removed under it, so
   * nothing could reach it again) is ended by its pid, which this server's own answer gave.
   */
  kill(): void {
    const pid = this.serverPid();
    this.tryRun(['kill-server']);
    if (pid !== undefined && !gone(pid, 3000)) {
      try {
        process.kill(pid, 'SIGKILL');
      } catch {
        /* gone meanwhile */
      }
    }
    const uid = process.getuid?.() ?? 0;
    rmSync(join(process.env.TMUX_TMPDIR || '/tmp', `tmux-${uid}`, this.socketName), { force: true });
  }
}

/** Whether a process has exited (or is a zombie no one reaps) within the time given. */
function gone(pid: number, withinMs: number): boolean {
  const until = Date.now() + withinMs;
  const nap = new Int32Array(new SharedArrayBuffer(4));
  for (;;) {
    let state: string | undefined;
    try {
      state = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ').at(-1)?.[0];
    } catch {
      return true;
    }
    if (state === 'Z' || state === 'X') return true;
    if (Date.now() > until) return false;
    Atomics.wait(nap, 0, 0, 50);
  }
}

/** The test runner itself may run inside tmux or an agent; never leak that into test servers. */
export function cleanTmuxEnv(extra: NodeJS.ProcessEnv = {}): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = { ...process.env, ...extra };
  for (const k of Object.keys(env)) {
    if (
      k === 'TMUX' ||
      k === 'TMUX_PANE' ||
      k === 'CLAUDECODE' ||
      k.startsWith('CLAUDE_CODE_') ||
      k.startsWith('CODEX_')
    )
      delete env[k];
  }
  return env;
}

export async function waitFor<T>(
  fn: () => T | undefined | false | Promise<T | undefined | false>,
  opts: { timeoutMs?: number; intervalMs?: number; what?: string } = {},
): Promise<T> {
  const deadline = Date.now() + (opts.timeoutMs ?? 15_000);
  let last: unknown;
  for (;;) {
    try {
      const v = await fn();
      if (v !== undefined && v !== false) return v as T;
    } catch (e) {
      last = e;
    }
    if (Date.now() > deadline)
      throw new Error(`timed out waiting for ${opts.what ?? 'condition'}${last ? `: ${String(last)}` : ''}`);
    await new Promise((r) => setTimeout(r, opts.intervalMs ?? 100));
  }
}

const PRINTED_PANE = '#{session_id} #{pane_id} #{pane_pid}';

/** `new-session` argv for a detached 200x50 session `name` (in `cwd`, with `env` set) that prints its pane. */
export function newPaneArgv(name: string, cwd: string | undefined, env: Record<string, string>): string[] {
  const sets = Object.entries(env).flatMap(([k, v]) => ['-e', `${k}=${v}`]);
  const where = cwd ? ['-c', cwd] : [];
  return ['new-session', '-d', '-s', name, '-x', '200', '-y', '50', ...where, ...sets, '-P', '-F', PRINTED_PANE];
}

/** The session and pane that a `newPaneArgv` command printed. */
export function printedPane(out: string): { sessionId: string; paneId: string; panePid: number } {
  const [sessionId, paneId, pid] = out.trim().split(' ');
  return { sessionId: sessionId!, paneId: paneId!, panePid: Number(pid) };
}
