/**
 * Paces writes into xterm. xterm renders once per animation frame that follows a write, and
 * rendering, not parsing, is what a flood costs the window (tmux sends an attach client screen
 * updates: under 1 MB for 8 MB of pane output). A chunk after a quiet spell (typing, a prompt) is
 * written at once, so interaction keeps its latency; while output streams, writes are merged so
 * the terminal renders at most once per `gapMs`, and once a stream has run without a pause for
 * `floodAfterMs`, at most once per `floodGapMs` (nobody reads a flood at 60 frames a second, and
 * the CPU it frees goes to tmux, which on a small machine is what a flood waits for).
 */
export const PACE = { gapMs: 33, floodGapMs: 100, floodAfterMs: 500, quietMs: 150 } as const;

export class WritePacer {
  private queue: Uint8Array[] = [];
  private size = 0;
  private timer: unknown;
  private last = -Infinity;
  private streamStart = -Infinity;
  private lastPush = -Infinity;
  private disposed = false;

  constructor(
    private readonly write: (data: Uint8Array, parsed: () => void) => void,
    private readonly acked: (bytes: number) => void,
    private readonly pace: { gapMs: number; floodGapMs: number; floodAfterMs: number; quietMs: number } = PACE,
    private readonly now: () => number = () => performance.now(),
    private readonly timers: { set(fn: () => void, ms: number): unknown; clear(h: unknown): void } = {
      set: (fn, ms) => setTimeout(fn, ms),
      clear: (h) => clearTimeout(h as ReturnType<typeof setTimeout>),
    },
  ) {}

  push(bytes: Uint8Array): void {
    if (this.disposed || bytes.length === 0) return;
    const now = this.now();
    if (now - this.lastPush > this.pace.quietMs) this.streamStart = now;
    this.lastPush = now;
    this.queue.push(bytes);
    this.size += bytes.length;
    if (this.timer !== undefined) return;
    const gap = now - this.streamStart >= this.pace.floodAfterMs ? this.pace.floodGapMs : this.pace.gapMs;
    const wait = this.last + gap - now;
    if (wait <= 0) this.flush();
    else this.timer = this.timers.set(() => this.flush(), wait);
  }

  /** True while writes are being held to the flood pace (for diagnostics and tests). */
  get flooding(): boolean {
    return this.now() - this.lastPush <= this.pace.quietMs && this.now() - this.streamStart >= this.pace.floodAfterMs;
  }

  dispose(): void {
    this.disposed = true;
    if (this.timer !== undefined) this.timers.clear(this.timer);
    this.timer = undefined;
    this.queue = [];
  }

  private flush(): void {
    this.timer = undefined;
    if (this.disposed || this.size === 0) return;
    const n = this.size;
    const data = this.queue.length === 1 ? this.queue[0]! : concat(this.queue, n);
    this.queue = [];
    this.size = 0;
    this.last = this.now();
    // The ack counts bytes xterm has parsed, so the host's flow control sees the real backlog.
    this.write(data, () => this.acked(n));
  }
}

function concat(parts: Uint8Array[], size: number): Uint8Array {
  const out = new Uint8Array(size);
  let off = 0;
  for (const p of parts) {
    out.set(p, off);
    off += p.length;
  }
  return out;
}
