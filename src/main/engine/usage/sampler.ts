import type { UsageSample, UsageSampleRepo } from '../store/usage-samples';

export const SAMPLE_MS = 60_000;

/** A sample as offered: everything but its minute, which the sampler gives it. */
export type SampleOffer = Omit<UsageSample, 'at'>;

interface Held {
  sample: UsageSample;
  /** What the table holds for its conversation now (its minute's row written with these figures). */
  written: boolean;
}

const same = (a: SampleOffer, b: SampleOffer): boolean =>
  a.tokensIn === b.tokensIn &&
  a.tokensOut === b.tokensOut &&
  a.contextTokens === b.contextTokens &&
  a.contextWindow === b.contextWindow &&
  a.costUsd === b.costUsd &&
  a.model === b.model;

/**
 * Keeps a seat's usage history at most one row a minute per conversation, and only when it
 * changed: each refresh offers the conversation's totals. The first change in a minute is written
 * at once (so an engine that answers one `ps` and exits leaves its row); later changes in the same
 * minute are held and written over that row when the next minute's figures come, or when a reader
 * asks for the history (`flush`). An idle seat writes nothing.
 */
export class UsageSampler {
  private readonly held = new Map<string, Held>();

  constructor(
    private readonly repo: Pick<UsageSampleRepo, 'record'>,
    private readonly now: () => number,
  ) {}

  offer(s: SampleOffer): void {
    const at = Math.floor(this.now() / SAMPLE_MS) * SAMPLE_MS;
    const key = `${s.seat}\0${s.conversationId}`;
    const h = this.held.get(key);
    // A held minute is written once its minute is over, even when nothing changed since: a seat
    // that went idle must not leave its last figures only in memory.
    if (h && !h.written && h.sample.at < at) {
      this.repo.record(h.sample);
      h.written = true;
    }
    if (h && same(h.sample, s)) return;
    const first = !h || h.sample.at < at;
    const sample = { ...s, at };
    if (first) this.repo.record(sample);
    this.held.set(key, { sample, written: first });
    if (this.held.size > MAX_HELD) this.forgetOldest();
  }

  /** Writes every minute not yet written (a reader of the history is about to read it). */
  flush(): void {
    for (const h of this.held.values()) {
      if (h.written) continue;
      this.repo.record(h.sample);
      h.written = true;
    }
  }

  private forgetOldest(): void {
    const [k, h] = this.held.entries().next().value!;
    if (!h.written) this.repo.record(h.sample);
    this.held.delete(k);
  }
}

/** Conversations held at once; past it the longest held is written and let go. */
const MAX_HELD = 2000;
