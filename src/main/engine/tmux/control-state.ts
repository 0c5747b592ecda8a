import type { ChildProcess } from 'node:child_process';
import type { ExecResult } from '../deps';
import type { ControlRunOptions } from './control-target';

/** What a held control connection (control.ts) keeps for each command line and for its client process. */

export interface Request {
  args: readonly string[];
  line: string;
  opts: ControlRunOptions;
  done: (r: ExecResult) => void;
  settled: boolean;
  /** tmux has opened a frame for this line: after a drop its effect is unknown. */
  started: boolean;
  failed: boolean;
  stdout: string;
  stderr: string;
  /** The server pid it was first written to; a retry runs only on that server. */
  serverPid?: number;
  tries: number;
  timer?: NodeJS.Timeout;
}

export interface Live {
  child: ChildProcess;
  nonce: string;
  seq: number;
  /** Written, awaiting their sentinel, oldest first (the handshake first of all). */
  inFlight: { req: Request; seq: number }[];
  /** The attach command's own frame has ended: only then may lines be written (see connect). */
  attached: boolean;
  ready: boolean;
  serverPid: number;
  stderr: string;
  exited: boolean;
  exitCode?: number | null;
  attachTimer?: NodeJS.Timeout;
}
