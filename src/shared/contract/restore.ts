import { z } from 'zod';
import { type AnswerSchemas, untypedAnswer } from './answer';

/** Snapshots, restore, decisions and the seat lifecycle. */

const seat = z.string().min(1).max(200);
const rig = z.string().min(1).max(200);
const reason = z.string().trim().min(1).max(2000);

export const DECISION_CHOICE = z.enum(['resume', 'fresh', 'leave_stopped']);
export type DecisionChoice = z.output<typeof DECISION_CHOICE>;

export const RESTORE_REQUESTS = {
  snapshot: z.strictObject({ rig }),
  snapshots: z.strictObject({ rig: rig.optional(), limit: z.number().int().min(1).max(1000).optional() }),
  /** A rig name, or a snapshot id (`N` or `snap-N`). */
  restore: z.strictObject({ target: z.string().min(1).max(200), plan: z.boolean().optional() }),
  decisions: z.strictObject({ rig: rig.optional(), all: z.boolean().optional() }),
  decide: z.strictObject({ id: z.number().int().min(1), choice: DECISION_CHOICE, reason }),
  restart: z.strictObject({ seat, keepConversation: z.literal(true), plan: z.boolean().optional() }),
  fresh: z.strictObject({ seat, reason, plan: z.boolean().optional() }),
  fork: z.strictObject({ seat, as: z.string().min(1).max(100), plan: z.boolean().optional() }),
  reconcile: z.strictObject({}),
} as const;

/** What each request answers beside `ok: true`. */
export const RESTORE_ANSWERS = {
  snapshot: untypedAnswer,
  snapshots: untypedAnswer,
  restore: untypedAnswer,
  decisions: untypedAnswer,
  decide: untypedAnswer,
  restart: untypedAnswer,
  fresh: untypedAnswer,
  fork: untypedAnswer,
  reconcile: untypedAnswer,
} as const satisfies AnswerSchemas<typeof RESTORE_REQUESTS>;
