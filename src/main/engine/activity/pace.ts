/**
 * When to look at a seat whose pane printed. After a quiet spell the look comes one debounce
 * later (a change is news); while output keeps coming (a flood, a streaming reply, a spinner) each
 * look waits twice as long after the previous one, up to a cap, because every look costs a
 * roster and a capture and sees the same "working". The cap bounds how late the end of a stream
 * (a prompt, the seat going idle) is seen; the target is 1.5 s by screen alone (bench/activity). A seat already
 * seen working is held further, to a pause in its output (`holdUntil`). Hook and live-state events
 * are explicit news and are never paced or held.
 * Pure: the monitor passes the time in.
 */
const LOOK_DEBOUNCE_MS = 30;
const LOOK_MAX_INTERVAL_MS = 240;
/** Looks closer together than this are one stream of output. */
const STREAM_GAP_MS = 400;
/** A working seat whose output streams on is looked at once its output pauses this long… */
const STREAM_QUIET_MS = 120;
/** …or this long after its previous look, if it never pauses (a prompt under a moving screen). */
const STREAM_LOOK_CAP_MS = 800;

export class LookPacer {
  private lastLook = new Map<string, number>();
  private streak = new Map<string, number>();
  constructor(
    private readonly debounceMs = LOOK_DEBOUNCE_MS,
    private readonly maxIntervalMs = LOOK_MAX_INTERVAL_MS,
    private readonly streamGapMs = STREAM_GAP_MS,
    private readonly quietMs = STREAM_QUIET_MS,
    private readonly capMs = STREAM_LOOK_CAP_MS,
  ) {}

  /**
   * A look that is due at `now`, at a seat last seen working whose pane printed last at
   * `lastOutputAt`: when to take it. A look in the middle of a flood only sees "working" again, so
   * it waits for a pause in the output, which is when the screen can have changed to something
   * else (a prompt, the seat idle), and is seen sooner than at a fixed pace; a screen that never
   * pauses is still looked at `capMs` after the previous look. A seat not seen working (its first
   * output is news) and a pane whose writer tells nothing of its output are never held.
   */
  holdUntil(seat: string, now: number, working: boolean, lastOutputAt: number | undefined): number {
    const last = this.lastLook.get(seat);
    if (!working || lastOutputAt === undefined || last === undefined) return now;
    const quietAt = lastOutputAt + this.quietMs;
    if (quietAt <= now) return now;
    return Math.min(quietAt, Math.max(now, last + this.capMs));
  }

  /** When a seat found dirty at `now` should be looked at. */
  dueAt(seat: string, now: number, urgent = false): number {
    const soon = now + this.debounceMs;
    const k = this.streak.get(seat) ?? 0;
    const last = this.lastLook.get(seat);
    if (urgent || k === 0 || last === undefined) return soon;
    return Math.max(soon, last + Math.min(this.maxIntervalMs, this.debounceMs * 2 ** k));
  }

  /** A look at `seat` began at `now`. */
  looked(seat: string, now: number): void {
    const last = this.lastLook.get(seat);
    const k = this.streak.get(seat) ?? 0;
    this.streak.set(seat, last !== undefined && now - last < this.streamGapMs ? Math.min(k + 1, 16) : 0);
    this.lastLook.set(seat, now);
  }
}
