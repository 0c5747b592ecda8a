import type { Db } from './db';

/** One sample: a conversation's running totals at a minute. */
export interface UsageSample {
  seat: string;
  rig: string;
  pod: string;
  runtime: string;
  conversationId: string;
  /** The minute's start (ms epoch). */
  at: number;
  model?: string;
  tokensIn: number;
  tokensOut: number;
  contextTokens?: number;
  contextWindow?: number;
  costUsd?: number;
}

interface Raw {
  seat: string;
  rig: string;
  pod: string;
  runtime: string;
  conversation_id: string;
  at: number;
  model: string | null;
  tokens_in: number;
  tokens_out: number;
  context_tokens: number | null;
  context_window: number | null;
  cost_usd: number | null;
}

const toSample = (r: Raw): UsageSample => ({
  seat: r.seat,
  rig: r.rig,
  pod: r.pod,
  runtime: r.runtime,
  conversationId: r.conversation_id,
  at: r.at,
  ...(r.model !== null ? { model: r.model } : {}),
  tokensIn: r.tokens_in,
  tokensOut: r.tokens_out,
  ...(r.context_tokens !== null ? { contextTokens: r.context_tokens } : {}),
  ...(r.context_window !== null ? { contextWindow: r.context_window } : {}),
  ...(r.cost_usd !== null ? { costUsd: r.cost_usd } : {}),
});

export interface SampleQuery {
  rig?: string;
  /** Samples at or after this (ms epoch); the last one before it is the baseline, see `baselines`. */
  since?: number;
  until?: number;
}

/**
 * The usage_samples table: only SQL and row shapes; when to sample and how to add them up are
 * decided in usage/.
 */
export class UsageSampleRepo {
  private readonly put;
  private readonly inRange;
  private readonly before;
  constructor(private readonly db: Db) {
    // The same minute again replaces its row: at most one a minute per conversation.
    this.put = db.prepare(`INSERT OR REPLACE INTO usage_samples
      (seat, rig, pod, runtime, conversation_id, at, model, tokens_in, tokens_out, context_tokens, context_window, cost_usd)
      VALUES (@seat, @rig, @pod, @runtime, @conversationId, @at, @model, @tokensIn, @tokensOut, @contextTokens, @contextWindow, @costUsd)`);
    this.inRange = db.prepare(`SELECT * FROM usage_samples
      WHERE (@rig IS NULL OR rig = @rig) AND at >= @since AND at <= @until ORDER BY at, seat, conversation_id`);
    // Each conversation's last sample before the range: what it had spent when the range began.
    this.before = db.prepare(`SELECT s.* FROM usage_samples s JOIN (
        SELECT seat, conversation_id, max(at) AS at FROM usage_samples
        WHERE (@rig IS NULL OR rig = @rig) AND at < @since GROUP BY seat, conversation_id
      ) b ON b.seat = s.seat AND b.conversation_id = s.conversation_id AND b.at = s.at`);
  }

  record(s: UsageSample): void {
    this.put.run({
      ...s,
      model: s.model ?? null,
      contextTokens: s.contextTokens ?? null,
      contextWindow: s.contextWindow ?? null,
      costUsd: s.costUsd ?? null,
    });
  }

  list(q: SampleQuery = {}): UsageSample[] {
    return (this.inRange.all(params(q)) as Raw[]).map(toSample);
  }

  /** Each conversation's last sample before `since` (none without a `since`). */
  baselines(q: SampleQuery): UsageSample[] {
    if (q.since === undefined) return [];
    return (this.before.all(params(q)) as Raw[]).map(toSample);
  }

  get count(): number {
    return (this.db.prepare('SELECT count(*) AS n FROM usage_samples').get() as { n: number }).n;
  }
}

const params = (q: SampleQuery) => ({
  rig: q.rig ?? null,
  since: q.since ?? 0,
  until: q.until ?? Number.MAX_SAFE_INTEGER,
});
