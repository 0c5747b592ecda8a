import { spawn } from 'node-pty';
import type { Endable } from '../engine/children';

/** The slice of node-pty a viewer uses; tests and the bench may inject their own. */
export interface PtyLike {
  readonly pid: number;
  onData(cb: (data: Uint8Array) => void): void;
  onExit(cb: (e: { exitCode: number; signal?: number }) => void): void;
  write(data: string | Buffer): void;
  resize(cols: number, rows: number): void;
  pause(): void;
  resume(): void;
  kill(): void;
}

export type SpawnPty = (
  file: string,
  args: string[],
  opts: { cols: number; rows: number; env: NodeJS.ProcessEnv; cwd?: string },
) => PtyLike;

/** node-pty with `encoding: null`, so pane bytes stay bytes (no UTF-8 split across chunks). */
export const livePty: SpawnPty = (file, args, opts) => {
  const p = spawn(file, args, {
    name: 'xterm-256color',
    cols: opts.cols,
    rows: opts.rows,
    env: opts.env as Record<string, string>,
    cwd: opts.cwd,
    encoding: null,
  });
  return {
    pid: p.pid,
    // With `encoding: null` node-pty hands over Buffers, though its types say string.
    onData: (cb) => void p.onData((d: string | Buffer) => cb(typeof d === 'string' ? Buffer.from(d) : d)),
    onExit: (cb) => void p.onExit(cb),
    write: (d) => p.write(d as string),
    resize: (c, r) => p.resize(c, r),
    pause: () => p.pause(),
    resume: () => p.resume(),
    kill: () => p.kill(),
  };
};

/** The attach client must not believe it runs inside another tmux, and speaks xterm. */
export function viewerEnv(base: NodeJS.ProcessEnv): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = { ...base, TERM: 'xterm-256color', COLORTERM: 'truecolor' };
  delete env.TMUX;
  delete env.TMUX_PANE;
  return env;
}

/**
 * A live pty's process as the engine's ChildSet tracks it: asked to end by the pty's own hangup,
 * then by its pid.
 */
export function endablePty(pty: PtyLike): Endable {
  let done = false;
  const fns: (() => void)[] = [];
  pty.onExit(() => {
    done = true;
    for (const f of fns.splice(0)) f();
  });
  return {
    pid: pty.pid,
    get done() {
      return done;
    },
    onExit: (fn) => (done ? fn() : fns.push(fn)),
    kill: (sig) => (sig === 'SIGTERM' ? pty.kill() : process.kill(pty.pid, sig)),
  };
}
