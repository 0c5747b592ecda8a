/**
 * When to look at a seat whose pane printed. After a quiet spell the look comes one debounce
 * later (a change is news); while output keeps coming (a flood, a streaming reply, a spinner) each
 * look waits twice as long after the previous one, up to a cap, because every look costs a
 * roster and a capture and sees the same "working". The cap bounds how late the end of a stream
 * (a prompt, the seat going idle) is seen; issue 4 allows 1.5 s by screen alone. Hook and
 * live-state events are explicit news and are never paced.
 * Pure: the monitor passes the time in.
 */
const LOOK_DEBOUNCE_MS = 30;
const LOOK_MAX_INTERVAL_MS = 240;
/** Looks closer together than this are one stream of output. */
const STREAM_GAP_MS = 400;

export class LookPacer {
  private lastLook = new Map<string, number>();
  private streak = new Map<string, number>();
  constructor(
    private readonly debounceMs = LOOK_DEBOUNCE_MS,
    private readonly maxIntervalMs = LOOK_MAX_INTERVAL_MS,
    private readonly streamGapMs = STREAM_GAP_MS,
  ) {}

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
