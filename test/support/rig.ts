import { execFile } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { liveEngineDeps, type EngineDeps } from '../../src/main/engine/context';
import { Engine, type EnginePorts } from '../../src/main/engine/engine';
import type { Roster } from '../../src/main/engine/roster/types';
import { resolveHome } from '../../src/main/engine/home';
import { cleanTmuxEnv, TestTmux } from './tmux';
import { descendants, liveProcReader } from '../../src/main/engine/proc';
import { waitForExit } from '../agents/claude-run';

export const REPO = resolve(__dirname, '..', '..');
export const RIGDESK_BIN = join(REPO, 'bin', 'rigdesk.cjs');

export interface CliResult {
  code: number;
  stdout: string;
  stderr: string;
  json: any; // eslint-disable-line @typescript-eslint/no-explicit-any
}

/**
 * One isolated Rigdesk world per test: its own RIGDESK_HOME, its own tmux server (`-L`, config
 * /dev/null) and a spec folder. `cli()` runs the real built `rigdesk` in a child process;
 * `engine()` builds an in-process engine over the same home for tests that inject faults.
 */
export class RigWorld {
  readonly root: string;
  readonly home: string;
  readonly tmux: TestTmux;
  readonly env: NodeJS.ProcessEnv;
  private engines: Engine[] = [];

  constructor(extraEnv: Record<string, string> = {}) {
    this.root = mkdtempSync(join(tmpdir(), 'rd-world-'));
    this.home = join(this.root, 'home');
    this.tmux = new TestTmux('rdw');
    this.env = cleanTmuxEnv({
      RIGDESK_HOME: this.home,
      RIGDESK_TMUX_SOCKET: this.tmux.socketName,
      RIGDESK_TMUX_CONF: '/dev/null',
      ...extraEnv,
    });
    delete this.env.RIGDESK_TEST_FAULT;
  }

  /** Writes a spec file (and the cwd folders it names, unless told not to). */
  spec(name: string, yaml: string, dirs: string[] = []): string {
    const p = join(this.root, name);
    for (const d of dirs) mkdirSync(join(this.root, d), { recursive: true });
    writeFileSync(p, yaml);
    return p;
  }

  /** `cwd`: the command's own folder (this process's by default). */
  cli(args: string[], extraEnv: NodeJS.ProcessEnv = {}, opts: { cwd?: string } = {}): Promise<CliResult> {
    return new Promise((res) => {
      execFile(
        process.execPath,
        [RIGDESK_BIN, ...args],
        { env: { ...this.env, ...extraEnv }, timeout: 120_000, maxBuffer: 32 * 1024 * 1024, cwd: opts.cwd },
        (err, stdout, stderr) => {
          const code = err
            ? typeof (err as { code?: unknown }).code === 'number'
              ? (err as { code: number }).code
              : 1
            : 0;
          let json: unknown;
          try {
            json = JSON.parse(stdout);
          } catch {
            json = undefined;
          }
          res({ code, stdout, stderr, json });
        },
      );
    });
  }

  /** An in-process engine over this world's home; `ports` replace some of its ports (a forced fault). */
  engine(
    overrides: Partial<EngineDeps> = {},
    ports: Partial<EnginePorts> | ((built: EnginePorts) => Partial<EnginePorts>) = {},
  ): Engine {
    mkdirSync(this.home, { recursive: true });
    const e = new Engine(liveEngineDeps(this.env, { layout: resolveHome(this.env), ...overrides }), ports);
    this.engines.push(e);
    return e;
  }

  sessions(): { id: string; name: string; seat: string }[] {
    const r = this.tmux.tryRun(['list-sessions', '-F', '#{session_id}\x1f#{session_name}\x1f#{@rigdesk_seat}']);
    if (!r.ok) return [];
    return r.out
      .trim()
      .split('\n')
      .filter(Boolean)
      .map((l) => {
        const [id, name, seat] = l.split('\x1f');
        return { id: id!, name: name!, seat: seat! };
      });
  }

  /**
   * Kills this world's tmux server, then waits (by pid) for every process that ran under its
   * panes, since agents like Claude take a moment to exit and would otherwise write into the
   * folder being removed; then cleans up.
   */
  async shutdown(graceMs = 5000): Promise<void> {
    const r = this.tmux.tryRun(['list-panes', '-a', '-F', '#{pane_pid}']);
    const panes = r.ok ? r.out.trim().split('\n').filter(Boolean).map(Number) : [];
    const snap = liveProcReader().snapshot();
    const all = panes.flatMap((p) => [p, ...descendants(snap, p).map((d) => d.pid)]);
    this.tmux.kill();
    await Promise.all(all.map((p) => waitForExit(p, graceMs)));
    this.cleanup();
  }

  cleanup(): void {
    for (const e of this.engines) {
      try {
        e.store.close();
      } catch {
        /* closed */
      }
    }
    this.tmux.kill();
    rmSync(this.root, { recursive: true, force: true });
  }
}

export function shellRigYaml(rig: string, members: string[], extra = ''): string {
  return `${[
    `name: ${rig}`,
    'pods:',
    '  - id: team',
    '    members:',
    ...members.map(
      (m) => `      - { id: ${m}, runtime: shell, cwd: ., command: bash, args: ["--noprofile", "--norc"] }`,
    ),
    extra,
  ].join('\n')}\n`;
}

/**
 * An engine's ports with a roster a test can redirect at any moment (a forced fault, a counter, a
 * held look) while whatever was given these ports runs; `real` is the engine's own.
 */
export function rosterSwitch(e: Engine): {
  ports: EnginePorts;
  real: () => Promise<Roster>;
  set(roster: () => Promise<Roster>): void;
} {
  const real = e.ports.roster;
  let current = real;
  return { ports: { ...e.ports, roster: () => current() }, real, set: (r) => void (current = r) };
}
