import { z } from 'zod';
import type { AnswerSchemas } from './answer';

/**
 * Usage over time: what the seats' records say they spent, added up from the engine's samples
 * (a conversation's running totals, at most one a minute), by seat, pod, rig, model or day; the
 * same as series for the Usage view; and the plan limits the runtimes record, per account.
 */

export const USAGE_GROUPS = ['seat', 'pod', 'rig', 'model', 'day'] as const;
export const usageGroup = z.enum(USAGE_GROUPS);

/** Where a window or a price came from. */
export const figureSource = z.enum(['records', 'catalog', 'settings']);
export const costSource = z.enum(['catalog', 'settings', 'catalog+settings']);

/** One rate-limit window of a plan, as a runtime recorded it for an account (a CLI home). */
export const planLimit = z.strictObject({
  runtime: z.string(),
  /** The CLI home the runtime is signed in from: one account. */
  account: z.string(),
  /** The runtime's name for the limit (Codex: `codex`), and which window; `usage_limit` a reached one. */
  limitId: z.string(),
  window: z.enum(['primary', 'secondary', 'reached']),
  usedPercent: z.number().nonnegative().optional(),
  windowMinutes: z.number().positive().optional(),
  /** When it resets (ms epoch), where the runtime said. */
  resetsAt: z.number().optional(),
  /** The runtime's own words, for a reached limit. */
  message: z.string().optional(),
});
export type PlanLimit = z.output<typeof planLimit>;

/**
 * A seat's daily budget, its pod's or its rig's (the one that parks it when both are declared):
 * what the spec allows per local day, what the records say was spent today, and whether its
 * queue's wakes and sends are parked. `over`: reached and not released; `released`: reached and
 * released for today by decision `decisionId`. Nothing running is stopped either way.
 */
export const seatBudget = z.strictObject({
  scope: z.enum(['pod', 'rig']),
  /** `pod@rig` for a pod, the rig's name for a rig. */
  name: z.string(),
  /** The local day (`YYYY-MM-DD`) the spending is counted over. */
  day: z.string(),
  state: z.enum(['under', 'over', 'released']),
  tokens: z.strictObject({ limit: z.number().int().positive(), spent: z.number().int().nonnegative() }).optional(),
  /** `spent` absent when some of today's spending has no price (then only tokens can reach it). */
  usd: z.strictObject({ limit: z.number().positive(), spent: z.number().nonnegative().optional() }).optional(),
  /** The open decision while over; the release's decision once released. */
  decisionId: z.number().int().optional(),
});
export type SeatBudget = z.output<typeof seatBudget>;

const since = z.number().int().min(0).optional();
const rig = z.string().min(1).max(200).optional();

export const USAGE_REQUESTS = {
  /** The spending since `since` (ms epoch; all the history without it), added up `by` a group. */
  'usage.summary': z.strictObject({ rig, by: usageGroup.optional(), since }),
  /** Running sums per seat or pod since `since`, at each sample time: the Usage view's lines. */
  'usage.series': z.strictObject({ rig, by: z.enum(['seat', 'pod']).optional(), since }),
} as const;

export const usageRow = z.strictObject({
  key: z.string(),
  seats: z.number().int().nonnegative(),
  conversations: z.number().int().nonnegative(),
  tokensIn: z.number().int(),
  tokensOut: z.number().int(),
  /** An estimate: the tokens by kind times the prices of the model (catalog or settings). */
  costUsd: z.number().optional(),
  /** Some of the spending had no price; `costUsd` is what was priced. */
  costPartial: z.literal(true).optional(),
});
export type UsageRow = z.output<typeof usageRow>;

/** What the estimates and windows rest on: the catalog's version, and the settings file's state. */
export const usageBasis = z.strictObject({
  catalog: z.strictObject({ name: z.string(), version: z.string() }),
  settings: z.strictObject({ path: z.string(), problem: z.string().optional() }),
});

export const seriesPoint = z.strictObject({
  at: z.number(),
  tokens: z.number().int(),
  costUsd: z.number().optional(),
});

export const USAGE_ANSWERS = {
  'usage.summary': z.strictObject({
    by: usageGroup,
    since: z.number().optional(),
    until: z.number(),
    rows: z.array(usageRow),
    limits: z.array(planLimit),
    basis: usageBasis,
  }),
  'usage.series': z.strictObject({
    by: z.enum(['seat', 'pod']),
    since: z.number().optional(),
    until: z.number(),
    series: z.array(z.strictObject({ key: z.string(), points: z.array(seriesPoint) })),
    basis: usageBasis,
  }),
} as const satisfies AnswerSchemas<typeof USAGE_REQUESTS>;
