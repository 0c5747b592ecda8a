import type { ExecResult } from '../deps';

/** What a held client (control.ts) needs to know about the server it holds a connection to. */
export interface ControlTarget {
  /** Server key, for messages. */
  key: string;
  /** The client process (`tmux ... -C attach-session ...`, or ssh running it on a host). */
  argv: string[];
  env?: NodeJS.ProcessEnv;
  /** Whether the server is there, looked at without a spawn; 'unknown' lets the client try. */
  probe: () => Promise<'present' | 'absent' | 'unknown'>;
  /** Checked before each (re)connect: an answer here is every waiting command's (a host in back-off). */
  gate?: () => ExecResult | undefined;
  /** A client that never came up: an answer here (ssh could not reach the host) is every waiting command's. */
  unreachable?: (exitCode: number | null, stderr: string) => ExecResult | undefined;
  /** What a one-shot `tmux` prints when the server is not running. */
  absentText: string;
  /** The one-shot path, for what a held client cannot serve (starting a server, a NUL byte). */
  oneShot: (args: readonly string[], opts: { timeoutMs: number; input?: string }) => Promise<ExecResult>;
  /** Called on each client process started (the benches count spawns). */
  onSpawn?: () => void;
}

export interface ControlRunOptions {
  timeoutMs: number;
  /**
   * A probe's short wait: when it runs out the caller gets a timeout, but the client stays (its
   * answer, when it comes, is read and dropped). Without it a timeout replaces the client.
   */
  keepClient?: boolean;
  /**
   * The command may start the server (new-session): where no server is running it goes one-shot
   * with these args, and a retry after a drop may run on a restarted server.
   */
  startServer?: readonly string[];
  /**
   * The command list as a line for a one-shot to read from its stdin (`startServer`, else
   * `tmux source-file -`), wherever it cannot go through the held client: its arguments (a seat's
   * env) are then never in a process's argv.
   */
  input?: string;
}

/** An answer that says why tmux was not asked, as a one-shot's stderr would. */
export function failure(why: string): ExecResult {
  return { code: null, signal: null, stdout: '', stderr: `${why}\n`, timedOut: false };
}
