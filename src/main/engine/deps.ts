import { type ChildProcess, execFile } from 'node:child_process';
import * as nodeFs from 'node:fs';

/**
 * Everything the engine needs from the live system arrives through a `Deps` object, so each
 * decision can be tested with an injected clock or exec, and a thin live adapter feeds it.
 */

export interface ExecOptions {
  /** Written to the child's stdin (e.g. `tmux load-buffer -`). */
  input?: string;
  timeoutMs?: number;
  env?: NodeJS.ProcessEnv;
  cwd?: string;
}

export interface ExecResult {
  /** Exit code; null when the child was killed by a signal or never started. */
  code: number | null;
  signal: NodeJS.Signals | null;
  stdout: string;
  stderr: string;
  timedOut: boolean;
  /** Set when the program could not be started at all (ENOENT, EACCES). */
  spawnError?: string;
}

/** execFile only: arguments are never joined into a shell string. */
export type Exec = (file: string, args: readonly string[], opts?: ExecOptions) => Promise<ExecResult>;

/** A timer from the clock: cancelled, it never fires (again). */
export interface Timer {
  cancel(): void;
}

/**
 * Time, and every timer the engine sets: a test's clock drives them all. `unref`: the timer alone
 * does not keep the process alive (a background pass, not work a caller waits for).
 */
export interface Clock {
  now(): number;
  sleep(ms: number): Promise<void>;
  /** Runs `fn` once, `ms` from now. */
  after(ms: number, fn: () => void, opts?: { unref?: boolean }): Timer;
  /** Runs `fn` every `ms` until cancelled. */
  every(ms: number, fn: () => void, opts?: { unref?: boolean }): Timer;
}

export const systemClock: Clock = {
  now: () => Date.now(),
  sleep: (ms) => new Promise((r) => setTimeout(r, ms)),
  after(ms, fn, opts) {
    const t = setTimeout(fn, ms);
    if (opts?.unref) t.unref();
    return { cancel: () => clearTimeout(t) };
  },
  every(ms, fn, opts) {
    const t = setInterval(fn, ms);
    if (opts?.unref) t.unref();
    return { cancel: () => clearInterval(t) };
  },
};

/**
 * The file system calls the engine makes, so a test can stand one in; the live one is node:fs.
 * The process table (proc/), the store's database and the SQLite files the engine opens read-only
 * are read by their own adapters.
 */
export type Fs = Pick<
  typeof nodeFs,
  | 'accessSync'
  | 'chmodSync'
  | 'closeSync'
  | 'constants'
  | 'copyFileSync'
  | 'existsSync'
  | 'fstatSync'
  | 'lstatSync'
  | 'mkdirSync'
  | 'mkdtempSync'
  | 'openSync'
  | 'readSync'
  | 'readdirSync'
  | 'readlinkSync'
  | 'realpathSync'
  | 'renameSync'
  | 'rmSync'
  | 'statSync'
  | 'symlinkSync'
  | 'unlinkSync'
  | 'utimesSync'
  | 'watch'
  | 'writeFileSync'
>;

export const liveFs: Fs = nodeFs;

const DEFAULT_TIMEOUT_MS = 10_000;

/** Where a started process is tracked until it exits (children.ts's ChildSet). */
export interface ChildTracker {
  trackChild(child: ChildProcess, what: string): void;
}

/** `children`: the engine's processes, where this one is tracked until it exits (children.ts). */
export const liveExec = (
  file: string,
  args: readonly string[],
  opts: ExecOptions = {},
  children?: ChildTracker,
): Promise<ExecResult> =>
  new Promise((resolve) => {
    const child = execFile(
      file,
      args as string[],
      {
        timeout: opts.timeoutMs ?? DEFAULT_TIMEOUT_MS,
        env: opts.env ?? process.env,
        cwd: opts.cwd,
        maxBuffer: 64 * 1024 * 1024,
        encoding: 'utf8',
        killSignal: 'SIGKILL',
      },
      (err, stdout, stderr) => {
        const e = err as (NodeJS.ErrnoException & { killed?: boolean; signal?: NodeJS.Signals; code?: unknown }) | null;
        if (e && typeof e.code === 'string') {
          resolve({
            code: null,
            signal: null,
            stdout: '',
            stderr: String(stderr ?? ''),
            timedOut: false,
            spawnError: e.code,
          });
          return;
        }
        resolve({
          code: e ? (typeof e.code === 'number' ? e.code : null) : 0,
          signal: e?.signal ?? null,
          stdout: String(stdout ?? ''),
          stderr: String(stderr ?? ''),
          timedOut: Boolean(e?.killed && e.signal === 'SIGKILL' && e.code === null),
        });
      },
    );
    children?.trackChild(child, `${file} ${args[0] ?? ''}`.trim());
    if (opts.input !== undefined) {
      child.stdin?.on('error', () => undefined);
      child.stdin?.end(opts.input);
    }
  });

/** Wraps an Exec and counts the processes it spawns; the roster bench and tests read `count`. */
export function countingExec(inner: Exec): Exec & { count: number; calls: string[][] } {
  const f = (async (file: string, args: readonly string[], opts?: ExecOptions) => {
    f.count += 1;
    f.calls.push([file, ...args]);
    return inner(file, args, opts);
  }) as Exec & { count: number; calls: string[][] };
  f.count = 0;
  f.calls = [];
  return f;
}
