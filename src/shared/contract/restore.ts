import { z } from 'zod';
import type { AnswerSchemas } from './answer';
import {
  answeredDecisionItem,
  DECISION_CHOICE,
  decisionItem,
  decisionOutcome,
  forkAnswer,
  freshAnswer,
  reconcileReport,
  restartAnswer,
  snapshotHead,
  snapshotRecord,
} from './restore-records';
import { restoreReport } from './restore-results';

/** Snapshots, restore, decisions and the seat lifecycle. */

const seat = z.string().min(1).max(200);
const rig = z.string().min(1).max(200);
const reason = z.string().trim().min(1).max(2000);

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
  snapshot: z.strictObject({ snapshot: snapshotRecord }),
  /** Newest first, without their seats (`snapshot`/`restore N` read one whole). */
  snapshots: z.strictObject({ snapshots: z.array(snapshotHead) }),
  restore: restoreReport,
  /** Open ones, or every one with `all`. */
  decisions: z.strictObject({ decisions: z.array(decisionItem) }),
  /** The decision as answered, and what its answer did (a refused launch opens a new decision). */
  decide: z.strictObject({ decision: answeredDecisionItem, result: decisionOutcome }),
  restart: restartAnswer,
  fresh: freshAnswer,
  fork: forkAnswer,
  reconcile: z.strictObject({ report: reconcileReport }),
} as const satisfies AnswerSchemas<typeof RESTORE_REQUESTS>;
