/**
 * How long a quiet rig waits between looks that no event asked for (the monitor's fallback pass, a
 * window's rest poll). Each look that found nothing new doubles the wait, up to `maxMs`; any news
 * (a change, pane output, an event row) brings it back to `baseMs`. A rig nobody touches then costs a
 * look every `maxMs` instead of every `baseMs`, and a silent change (a process exiting without
 * printing) is still seen within `maxMs`.
 */
export class RestCadence {
  private ms: number;
  private newsCount = 0;

  constructor(
    private readonly baseMs: number,
    private readonly maxMs = baseMs * 3,
  ) {
    this.ms = baseMs;
  }

  /** The wait before the next look. */
  get waitMs(): number {
    return this.ms;
  }

  /** A look found nothing new. */
  quiet(): void {
    this.ms = Math.min(Math.max(this.maxMs, this.baseMs), this.ms * 2);
  }

  /** Taken when a look starts, for `looked`: news that comes while a look runs is not lost to it. */
  get mark(): number {
    return this.newsCount;
  }

  /** After a look begun at `mark` that saw something new, or nothing (and no news came meanwhile). */
  looked(sawNews: boolean, mark = this.newsCount): void {
    if (sawNews || mark !== this.newsCount) this.news();
    else this.quiet();
  }

  /** Something happened: look again at the base pace. True when the wait was longer than that. */
  news(): boolean {
    const was = this.ms;
    this.newsCount++;
    this.ms = this.baseMs;
    return was > this.baseMs;
  }
}
