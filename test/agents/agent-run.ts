/**
 * Generic helpers for running a real agent CLI from tests (Codex, Pi): headless as a child process,
 * interactive in a TestTmux, plus the /proc readings the tests assert on (ppid chain, raw cmdline,
 * flock holders) and the by-pid cleanup of anything that still carries a fixture's private dir.
 *
 * Reading /proc here is deliberately independent of src/main/engine/proc, so these tests check the
 * facts the engine relies on rather than the engine's own parser.
 */
import { spawn } from 'node:child_process';
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { newPaneArgv, printedPane, type TestTmux } from '../support/tmux';
import { processAlive, waitForExit } from './claude-run';

export { killTmuxServer, processAlive, waitForExit } from './claude-run';

export interface RunResult {
  code: number | null;
  stdout: string;
  stderr: string;
}

/** Variables from the runner's own environment that must not reach a sandboxed agent CLI. */
// PWD too: OpenCode takes its folder from $PWD before its real cwd, so the runner's would leak in.
// And a CI run's markers: an agent started by hand in a pane is a person's terminal, and Gemini CLI
// with CI set runs headless and exits (as Rigdesk's own seats drop them too).
const LEAKY =
  /^(ANTHROPIC_|CLAUDE|OPENAI_|CODEX_|PI_|GEMINI_|GOOGLE_|QWEN_|OPENCODE|XDG_|PWD$|OLDPWD$|TMUX$|TMUX_PANE$|CI$|CONTINUOUS_INTEGRATION$|CI_|https?_proxy$|no_proxy$|all_proxy$)/i;

/** The runner's environment minus anything agent-, XDG- or proxy-related, plus the fixture's env. */
export function agentProcessEnv(fxEnv: Record<string, string>): Record<string, string> {
  const base: Record<string, string> = {};
  for (const [k, v] of Object.entries(process.env)) if (v !== undefined && !LEAKY.test(k)) base[k] = v;
  return { ...base, ...fxEnv };
}

/** `<bin> <args>` with the fixture's environment, stdin from /dev/null, SIGKILLed (by its own pid) after timeoutMs. */
export function runAgent(
  bin: string,
  fxEnv: Record<string, string>,
  cwd: string,
  args: string[],
  timeoutMs = 30_000,
): Promise<RunResult> {
  return new Promise((resolve, reject) => {
    const child = spawn(bin, args, {
      cwd,
      env: { PWD: cwd, ...agentProcessEnv(fxEnv) },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    child.stdout.setEncoding('utf8').on('data', (d: string) => (stdout += d));
    child.stderr.setEncoding('utf8').on('data', (d: string) => (stderr += d));
    const timer = setTimeout(() => child.kill('SIGKILL'), timeoutMs);
    child.once('error', (e) => {
      clearTimeout(timer);
      reject(e);
    });
    child.once('close', (code) => {
      clearTimeout(timer);
      resolve({ code, stdout, stderr });
    });
  });
}

/**
 * Starts `argv` (no shell) in a new session of the test's private tmux server, 200×50. Every
 * fixture variable is passed with `-e` as well as to the tmux client: tmux 3.3 gives a new session
 * the *client's* PATH, not the server's global one. `remainOnExit` keeps a dead pane (and its exit
 * status, `#{pane_dead_status}`) for tests of a CLI that exits at once.
 */
export function startInTmux(
  tmux: TestTmux,
  fxEnv: Record<string, string>,
  name: string,
  cwd: string,
  argv: string[],
  opts: { remainOnExit?: boolean } = {},
): { paneId: string; panePid: number } {
  const env = agentProcessEnv(fxEnv);
  const pre = opts.remainOnExit ? ['set-option', '-g', 'remain-on-exit', 'on', ';'] : [];
  const out = tmux.run([...pre, ...newPaneArgv(name, cwd, fxEnv), ...argv], { env });
  return printedPane(out);
}

/** The visible screen plus `history` lines of scrollback (Codex pushes some output into history). */
export function screenWithHistory(tmux: TestTmux, target: string, history = 200): string {
  return tmux.run(['capture-pane', '-p', '-J', '-S', `-${history}`, '-t', target]);
}

/**
 * `#{pane_dead} #{pane_dead_status}` of a pane kept by remain-on-exit. Caution: with tmux 3.3a a
 * program that exits within ~100 ms of a fresh server's first pane (codex resume <missing id>) was
 * seen dead with an empty status and left an unreaped zombie in 2 of 3 tries; wrap it in a shell
 * that echoes `$?` when the status matters.
 */
export function paneExit(tmux: TestTmux, target: string): { dead: boolean; status: number | undefined } {
  const [dead, status] = tmux
    .run(['display-message', '-p', '-t', target, '#{pane_dead} #{pane_dead_status}'])
    .trim()
    .split(' ');
  return { dead: dead === '1', status: status === undefined || status === '' ? undefined : Number(status) };
}

/** Sends literal text, waits, then Enter: Codex drops an Enter that arrives right after typed text. */
export async function typeAndSubmit(tmux: TestTmux, paneId: string, text: string, enterDelayMs = 0): Promise<void> {
  tmux.run(['send-keys', '-t', paneId, '-l', text]);
  if (enterDelayMs > 0) await new Promise((r) => setTimeout(r, enterDelayMs));
  tmux.run(['send-keys', '-t', paneId, 'Enter']);
}

// ---------------------------------------------------------------------------------------------
// /proc readings

/** Fields of /proc/<pid>/stat after the comm: state and ppid. */
export function procStat(pid: number): { comm: string; state: string; ppid: number } | undefined {
  try {
    const s = readFileSync(`/proc/${pid}/stat`, 'utf8');
    const close = s.lastIndexOf(')');
    const rest = s.slice(close + 2).split(' ');
    return { comm: s.slice(s.indexOf('(') + 1, close), state: rest[0]!, ppid: Number(rest[1]) };
  } catch {
    return undefined;
  }
}

/** The raw bytes of /proc/<pid>/cmdline, NULs kept. */
export function rawCmdline(pid: number): string {
  return readFileSync(`/proc/${pid}/cmdline`, 'latin1');
}

export function procComm(pid: number): string {
  return readFileSync(`/proc/${pid}/comm`, 'utf8').trim();
}

/** pid, its parent, its grandparent, … up to pid 1 (or the first unreadable one). */
export function ppidChain(pid: number): number[] {
  const chain: number[] = [];
  let p: number | undefined = pid;
  while (p !== undefined && p > 0 && !chain.includes(p)) {
    chain.push(p);
    if (p === 1) break;
    p = procStat(p)?.ppid;
  }
  return chain;
}

/** Direct children of pid (by scanning /proc/<n>/stat). */
export function childrenOf(pid: number): number[] {
  const out: number[] = [];
  for (const name of readdirSync('/proc')) {
    if (!/^\d+$/.test(name)) continue;
    if (procStat(Number(name))?.ppid === pid) out.push(Number(name));
  }
  return out;
}

/** pid and every descendant, parents first. */
export function processTree(pid: number): number[] {
  const out = [pid];
  for (let i = 0; i < out.length; i++) for (const c of childrenOf(out[i]!)) if (!out.includes(c)) out.push(c);
  return out;
}

export interface HeldLock {
  kind: string;
  mode: string;
  pid: number;
  devMajor: number;
  devMinor: number;
  inode: number;
}

/** Held locks from /proc/locks (blocked waiters, `->` lines, are skipped). */
export function procLocks(): HeldLock[] {
  const out: HeldLock[] = [];
  for (const line of readFileSync('/proc/locks', 'utf8').split('\n')) {
    const m = /^\d+:\s+(?!->)(\S+)\s+\S+\s+(\S+)\s+(\d+)\s+([0-9a-f]+):([0-9a-f]+):(\d+)\s/i.exec(line);
    if (!m) continue;
    out.push({
      kind: m[1]!,
      mode: m[2]!,
      pid: Number(m[3]),
      devMajor: parseInt(m[4]!, 16),
      devMinor: parseInt(m[5]!, 16),
      inode: Number(m[6]),
    });
  }
  return out;
}

/** Locks held on the file at `path` (matched by device and inode, as /proc/locks names files). */
export function locksOnFile(path: string): HeldLock[] {
  const st = statSync(path, { bigint: true });
  const d = st.dev;
  const major = Number(((d >> 8n) & 0xfffn) | ((d >> 32n) & 0xfffff000n));
  const minor = Number((d & 0xffn) | ((d >> 12n) & 0xffffff00n));
  const ino = Number(st.ino);
  return procLocks().filter((l) => l.inode === ino && l.devMajor === major && l.devMinor === minor);
}

/** Pids (other than this test process) whose environment holds exactly `KEY=value`. */
export function pidsWithEnv(key: string, value: string): number[] {
  const needle = `${key}=${value}`;
  const out: number[] = [];
  for (const name of readdirSync('/proc')) {
    if (!/^\d+$/.test(name)) continue;
    const pid = Number(name);
    if (pid === process.pid) continue;
    try {
      if (readFileSync(`/proc/${pid}/environ`, 'utf8').split('\0').includes(needle)) out.push(pid);
    } catch {
      /* gone, or not ours to read */
    }
  }
  return out.filter(processAlive);
}

/** Pids whose command line mentions `fragment` (e.g. a private CODEX_HOME path). */
export function pidsWithCmdline(fragment: string): number[] {
  const out: number[] = [];
  for (const name of readdirSync('/proc')) {
    if (!/^\d+$/.test(name)) continue;
    const pid = Number(name);
    if (pid === process.pid) continue;
    try {
      if (rawCmdline(pid).includes(fragment)) out.push(pid);
    } catch {
      /* gone */
    }
  }
  return out.filter(processAlive);
}

/**
 * SIGKILLs exactly the given pids (found by the caller from its own private dirs) and waits until
 * they are gone. Returns what each was, for the test to report.
 */
export async function killPids(
  pids: number[],
  waitMs = 5_000,
): Promise<Array<{ pid: number; comm: string; cmdline: string }>> {
  const seen = pids.map((pid) => {
    let comm = '?';
    let cmdline = '';
    try {
      comm = procComm(pid);
      cmdline = rawCmdline(pid).replace(/\0+/g, ' ').trim();
    } catch {
      /* gone already */
    }
    return { pid, comm, cmdline };
  });
  for (const pid of pids) {
    try {
      process.kill(pid, 'SIGKILL');
    } catch {
      /* already gone */
    }
  }
  const deadline = Date.now() + waitMs;
  while (Date.now() < deadline && pids.some(processAlive)) await new Promise((r) => setTimeout(r, 50));
  return seen;
}

/**
 * Ends a test's own tmux server and waits (5 s each) for every process of its panes to exit, then
 * kills by pid whatever still carries the fixture's private dir (`privateEnv`, e.g. its TMPDIR): a
 * fixture's folders can only be removed once nothing writes into them any more.
 */
export async function endTmuxAgents(tmux: TestTmux, privateEnv?: [key: string, value: string]): Promise<void> {
  const panes = tmux.tryRun(['list-panes', '-a', '-F', '#{pane_pid}']);
  const pids = panes.ok
    ? panes.out
        .trim()
        .split('\n')
        .filter(Boolean)
        .flatMap((p) => processTree(Number(p)))
    : [];
  tmux.kill();
  for (const pid of pids) await waitForExit(pid, 5_000);
  await killPids(pids.filter(processAlive));
  if (privateEnv) await killPids(pidsWithEnv(...privateEnv));
}
