/**
 * Output batching and flow control for one terminal viewer (VS Code's platform/common layer).
 * Pure: the timer and the pause/resume actions are injected, so tests drive them exactly.
 */

/** Flush a batch after this long, or as soon as it holds this many bytes. */
export const BATCH_MAX_DELAY_MS = 16;
export const BATCH_MAX_BYTES = 200 * 1024;
/** A viewer's pty is read at most once per this long: one frame at 60 fps (see ReadGate). */
export const READ_GAP_MS = 16;
/** Pause the pty above this many unacknowledged bytes and resume below the low mark. */
export const FLOW_HIGH_WATERMARK = 100_000;
export const FLOW_LOW_WATERMARK = 5_000;

export interface Timers {
  set(fn: () => void, ms: number): unknown;
  clear(handle: unknown): void;
}
export const realTimers: Timers = {
  set: (fn, ms) => setTimeout(fn, ms),
  clear: (h) => clearTimeout(h as NodeJS.Timeout),
};

/** Coalesces pty chunks: one frame per ≤16 ms, or earlier once 200 KB are waiting. */
export class OutputBatcher {
  private chunks: Uint8Array[] = [];
  private size = 0;
  private timer: unknown;
  constructor(
    private readonly flush: (batch: Uint8Array) => void,
    private readonly timers: Timers = realTimers,
    private readonly maxBytes = BATCH_MAX_BYTES,
    private readonly maxDelayMs = BATCH_MAX_DELAY_MS,
  ) {}

  push(chunk: Uint8Array): void {
    if (chunk.length === 0) return;
    this.chunks.push(chunk);
    this.size += chunk.length;
    if (this.size >= this.maxBytes) this.flushNow();
    else if (this.timer === undefined) this.timer = this.timers.set(() => this.flushNow(), this.maxDelayMs);
  }

  flushNow(): void {
    if (this.timer !== undefined) this.timers.clear(this.timer);
    this.timer = undefined;
    if (this.size === 0) return;
    const batch = this.chunks.length === 1 ? this.chunks[0]! : concat(this.chunks, this.size);
    this.chunks = [];
    this.size = 0;
    this.flush(batch);
  }

  dispose(): void {
    if (this.timer !== undefined) this.timers.clear(this.timer);
    this.timer = undefined;
    this.chunks = [];
    this.size = 0;
  }
}

function concat(chunks: Uint8Array[], size: number): Uint8Array {
  const out = new Uint8Array(size);
  let off = 0;
  for (const c of chunks) {
    out.set(c, off);
    off += c.length;
  }
  return out;
}

/**
 * Counts bytes sent to the window and not yet parsed by its xterm. Above the high mark the pty
 * is paused (tmux then throttles this one client; the pane and other viewers go on), and it
 * resumes only below the low mark, so it does not flap around one threshold.
 */
export class FlowControl {
  private unacked = 0;
  private paused = false;
  /** How many times it resumed: a flood re-pauses at once, so "resumed" is a count, not a state. */
  private resumes = 0;
  constructor(
    private readonly pause: () => void,
    private readonly resume: () => void,
    private readonly high = FLOW_HIGH_WATERMARK,
    private readonly low = FLOW_LOW_WATERMARK,
  ) {}

  sent(bytes: number): void {
    this.unacked += bytes;
    if (!this.paused && this.unacked > this.high) {
      this.paused = true;
      this.pause();
    }
  }

  /** An ack can never credit more than was sent: a lying or confused window cannot unpause early. */
  acked(bytes: number): void {
    this.unacked = Math.max(0, this.unacked - Math.max(0, bytes));
    if (this.paused && this.unacked < this.low) {
      this.paused = false;
      this.resumes++;
      this.resume();
    }
  }

  get state(): { unacked: number; paused: boolean; resumes: number } {
    return { unacked: this.unacked, paused: this.paused, resumes: this.resumes };
  }
}

/**
 * Why a viewer's pty is not being read: flow control (the window is behind) and the read gate (it
 * was read less than a frame ago) each hold it for their own reason, and it is read again only
 * when neither does, so one ending never releases what the other still holds.
 */
export class PtyHold {
  private readonly reasons = new Set<'flow' | 'gap'>();
  constructor(
    private readonly pause: () => void,
    private readonly resume: () => void,
  ) {}

  set(reason: 'flow' | 'gap', held: boolean): void {
    const was = this.reasons.size > 0;
    if (held) this.reasons.add(reason);
    else this.reasons.delete(reason);
    const is = this.reasons.size > 0;
    if (!was && is) this.pause();
    else if (was && !is) this.resume();
  }
}

/**
 * Reads a viewer's pty at most once per gap. A read after a quiet spell (an echo, a prompt) goes
 * through at once; whatever tmux writes within the next frame waits for that frame, as the window
 * would only paint it then anyway. In a flood, tmux then finds this client's output pending and
 * sends it the pane's latest screen instead of every line: for `seq 1 2000000` the viewer is sent
 * about 100 KB instead of 2 MB, still with a new screen every few tens of ms, and the host and
 * renderer spent about a quarter less CPU per bench/terminal flood (A/B, 6 pairs), with the
 * flood's end shown no later.
 */
export class ReadGate {
  private timer: unknown;
  constructor(
    private readonly hold: (held: boolean) => void,
    private readonly timers: Timers = realTimers,
    private readonly gapMs = READ_GAP_MS,
  ) {}

  /** A read happened: hold further reads until the gap has passed. */
  read(): void {
    if (this.timer !== undefined || this.gapMs <= 0) return;
    this.hold(true);
    this.timer = this.timers.set(() => {
      this.timer = undefined;
      this.hold(false);
    }, this.gapMs);
  }

  dispose(): void {
    if (this.timer !== undefined) this.timers.clear(this.timer);
    this.timer = undefined;
  }
}
