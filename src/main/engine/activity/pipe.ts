import { Socket, type SocketConstructorOpts } from 'node:net';
import type { Clock, Exec, Fs } from '../deps';
import type { TmuxClient } from '../tmux/client';

/**
 * "This pane printed something", for a seat on this machine, from `tmux pipe-pane`: tmux copies the
 * pane's raw output into a fifo Rigdesk reads, through one `cat` per pane (pipe-remote.ts does the
 * same on a host).
 *
 * Why not a control-mode client (control.ts, still used for panes whose output somebody else
 * already pipes): tmux escapes every byte of a flood for it, which
 * more than doubles tmux's own CPU for that pane (bench/terminal `clients`), and a control client
 * that is behind on a pane when the pane is respawned crashes tmux 3.3a's server (tmux #5499),
 * with every seat on it; Rigdesk restarts seats with `respawn-pane -k`. A pipe costs tmux one
 * write per read, and survives a respawn.
 *
 * Never somebody else's pipe: the pipe is set only on a pane that has none (`if-shell -F` on
 * `pane_pipe`, in the same tmux command), and a pane that has one, a person's or a pipe left by an
 * engine that went away, is watched by a control client until it has none. Ours ends when its
 * writer does: the pane died, somebody replaced or closed the pipe, or `cat` lost its reader; the
 * watch then ends too and the next look decides again. When the engine goes, the fifo loses its
 * reader, the next write kills `cat` (EPIPE) and tmux drops the pipe by itself.
 */
export type PipeStart = { ok: true } | { ok: false; why: 'foreign' | 'unsafe_path' | 'failed'; detail: string };

/** Shared by every pipe watch: what is read is only ever counted as "output happened", never read back. */
const READ_BUFFER = Buffer.allocUnsafe(64 * 1024);

/** A fifo path that needs no quoting in sh or in a tmux command string. */
const SAFE_PATH = /^\/[\w./-]+$/;

export class PanePipeWatch {
  private sock?: Socket;
  private muted = false;
  /** When the pane last printed (ms since the epoch), for holding a look until its output pauses. */
  lastOutputAt?: number;
  /** Set while start() waits for `cat`'s first byte. */
  private greeted?: () => void;
  constructor(
    /** "<server key> <pane id>": a different pane needs a different watch. */
    readonly key: string,
    private readonly tmux: TmuxClient,
    private readonly paneId: string,
    readonly fifo: string,
    private readonly onDirty: () => void,
    private readonly exec: Exec,
    /** The engine's clock: output times are compared with the monitor's. */
    private readonly clock: Clock,
    private readonly fs: Pick<Fs, 'constants' | 'openSync' | 'rmSync'>,
  ) {}

  async start(helloTimeoutMs = 5000): Promise<PipeStart> {
    if (!SAFE_PATH.test(this.fifo) || !/^%\d+$/.test(this.paneId))
      return { ok: false, why: 'unsafe_path', detail: this.fifo };
    const made = await this.makeFifo();
    if (!made.ok) return made;
    // Read-write first, so neither this open nor `cat`'s waits for the other; non-blocking, so
    // libuv polls it like a pipe instead of parking a thread on it.
    let rw: Socket;
    try {
      rw = this.socketOn(this.fs.openSync(this.fifo, this.fs.constants.O_RDWR | this.fs.constants.O_NONBLOCK));
    } catch (e) {
      return { ok: false, why: 'failed', detail: (e as Error).message };
    }
    this.sock = rw;
    const hello = new Promise<boolean>((resolve) => {
      const t = this.clock.after(helloTimeoutMs, () => resolve(false));
      this.greeted = () => (t.cancel(), (this.greeted = undefined), resolve(true));
    });
    const r = await this.tmux.run([
      'if-shell',
      '-F',
      '-t',
      this.paneId,
      '#{pane_pipe}',
      'display-message -p rigdesk:piped-already',
      pipeCommand(this.paneId, this.fifo),
    ]);
    if (r.code !== 0 || r.stdout.includes('rigdesk:piped-already')) {
      this.stop();
      return r.code !== 0
        ? { ok: false, why: 'failed', detail: r.stderr.trim() || `tmux exited ${r.code}` }
        : { ok: false, why: 'foreign', detail: `${this.paneId} already pipes its output elsewhere` };
    }
    if (!(await hello) || this.sock !== rw) {
      this.stop();
      return { ok: false, why: 'failed', detail: 'the pipe never opened the fifo' };
    }
    // `cat` has it open: from now on read-only, so its end (the pane died, the pipe was replaced
    // or closed) is the end of this stream, and of the watch.
    try {
      const ro = this.socketOn(this.fs.openSync(this.fifo, this.fs.constants.O_RDONLY | this.fs.constants.O_NONBLOCK));
      ro.once('end', () => this.ended());
      this.sock = ro;
      rw.destroy();
    } catch (e) {
      this.stop();
      return { ok: false, why: 'failed', detail: (e as Error).message };
    }
    return { ok: true };
  }

  get alive(): boolean {
    return this.sock !== undefined && !this.sock.destroyed;
  }

  /** Before a look at the pane: its next output is news again. */
  rearm(): void {
    this.muted = false;
  }

  /** Closes our end and removes the fifo; `cat` then ends at the pane's next write. */
  stop(): void {
    this.sock?.destroy();
    this.sock = undefined;
    this.fs.rmSync(this.fifo, { force: true });
  }

  private socketOn(fd: number): Socket {
    // Every byte of a flood passes through here and none is kept, so each read lands in one
    // reused buffer: no Buffer and no stream event per read (tmux writes a pane's output in reads
    // of a few KB, thousands a second in a flood).
    // (`onread` is a documented constructor option whose type this @types/node predates.)
    const opts: SocketConstructorOpts & { onread: { buffer: Uint8Array; callback: () => boolean } } = {
      fd,
      readable: true,
      writable: false,
      onread: { buffer: READ_BUFFER, callback: () => (this.output(), true) },
    };
    const sock = new Socket(opts);
    sock.on('error', () => sock.destroy());
    return sock;
  }

  private output(): void {
    this.lastOutputAt = this.clock.now();
    this.greeted?.();
    if (this.muted) return;
    this.muted = true;
    this.onDirty();
  }

  /** The writer is gone: whatever happened to the pane is news, and the next look decides again. */
  private ended(): void {
    this.stop();
    this.onDirty();
  }

  private async makeFifo(): Promise<{ ok: true } | { ok: false; why: 'failed'; detail: string }> {
    // Always a fresh inode: a `cat` still writing to an older one gets EPIPE and ends.
    try {
      this.fs.rmSync(this.fifo, { force: true });
    } catch (e) {
      return { ok: false, why: 'failed', detail: (e as Error).message };
    }
    const r = await this.exec('mkfifo', ['-m', '600', this.fifo], { timeoutMs: 5000 });
    if (r.code !== 0)
      return { ok: false, why: 'failed', detail: r.spawnError ?? (r.stderr.trim() || `mkfifo exited ${r.code}`) };
    return { ok: true };
  }
}

/**
 * Sets the pipe and marks which fifo it feeds (for a person reading `#{@rigdesk_watch}`). `cat`
 * runs only while the path is still a fifo: a missing one must not become a regular file that
 * grows with the pane's output. Its first byte says it has the fifo open.
 */
export function pipeCommand(paneId: string, fifo: string): string {
  return `pipe-pane -O -t ${paneId} 'test -p ${fifo} && exec >${fifo} && printf . && exec cat' ; set -p -t ${paneId} @rigdesk_watch ${fifo}`;
}
