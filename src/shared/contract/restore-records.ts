import { z } from 'zod';
import { ERROR_CODES } from '../errors';
import {
  attentionResult,
  decisionReason,
  freshResult,
  resumedResult,
  seatResult,
  transcriptFact,
} from './restore-results';

/** Snapshots, decisions, the seat lifecycle's plans, fork and reconcile, as their answers carry them. */

const int = z.number().int();
const evidence = z.record(z.string(), z.unknown());

/** `release`: a budget decision's answer, letting the pod's (or rig's) parked wakes and sends run for the rest of the day. */
export const DECISION_CHOICE = z.enum(['resume', 'fresh', 'leave_stopped', 'release']);
export type DecisionChoice = z.output<typeof DECISION_CHOICE>;

export const snapshotReason = z.enum(['manual', 'before_down', 'timer', 'restore']);
export type SnapshotReason = z.output<typeof snapshotReason>;

/** What a snapshot seat's conversation id rests on, as the live system showed it then. */
export const snapshotEvidence = z.strictObject({
  /** `roster:<claim source>` (the running agent said), `store`, or `none`. */
  source: z.string(),
  pid: int.optional(),
  startTime: z.string().optional(),
  paneId: z.string().optional(),
  sessionId: z.string().optional(),
  /** The store's older id, when the running agent had moved on (Claude's /clear). */
  storeConversationId: z.string().optional(),
  /** The id was bound from the live process while this snapshot was taken. */
  bound: z.literal(true).optional(),
  transcript: transcriptFact.optional(),
  recorded: z
    .strictObject({ home: z.string().nullable(), cwd: z.string().nullable(), transcriptPath: z.string().nullable() })
    .optional(),
});

export const snapshotSeat = z.strictObject({
  seat: z.string(),
  runtime: z.string(),
  cwd: z.string(),
  restorePolicy: z.string(),
  conversationId: z.string().nullable(),
  evidence: snapshotEvidence,
  stoppedOnPurpose: z.boolean(),
  state: z.enum(['running', 'stopped', 'gone', 'unknown']),
});
export type SnapshotSeat = z.output<typeof snapshotSeat>;

export const snapshotHead = z.strictObject({ id: int, rig: z.string(), reason: snapshotReason, takenAt: z.number() });
export type SnapshotHead = z.output<typeof snapshotHead>;
export const snapshotRecord = snapshotHead.extend({ seats: z.array(snapshotSeat) });
export type Snapshot = z.output<typeof snapshotRecord>;

/** A decision answered `leave_stopped`: nothing launched, the seat is marked stopped on purpose. */
export const leftStopped = z.strictObject({ seat: z.string(), outcome: z.literal('left_stopped') });
/** What answering a decision did to its seat. */
/** A budget decision answered `release`: the scope's parked wakes and sends run for the rest of `day`. */
export const budgetReleased = z.strictObject({
  seat: z.string(),
  outcome: z.literal('released'),
  scope: z.enum(['pod', 'rig']),
  name: z.string(),
  day: z.string(),
  why: z.string(),
});
export const decisionOutcome = z.discriminatedUnion('outcome', [...seatResult.options, leftStopped, budgetReleased]);
export type DecisionOutcome = z.output<typeof decisionOutcome>;

const decisionCommon = {
  id: int,
  seat: z.string(),
  rig: z.string(),
  /** `restore`: how a seat comes back; `budget`: its pod's or rig's daily budget was reached. */
  kind: z.enum(['restore', 'budget']),
  reason: decisionReason,
  runtime: z.string(),
  conversationId: z.string().nullable(),
  snapshotId: int.nullable(),
  choices: z.array(DECISION_CHOICE),
  evidence,
  createdAt: z.number(),
};
export const openDecisionItem = z.strictObject({
  ...decisionCommon,
  state: z.literal('open'),
  answer: z.null(),
  answerReason: z.null(),
  answeredAt: z.null(),
  outcome: z.null(),
});
/** Answered: the choice, the reason given, when; and what it did (null while its launch had not finished). */
export const answeredDecisionItem = z.strictObject({
  ...decisionCommon,
  state: z.literal('answered'),
  answer: DECISION_CHOICE,
  answerReason: z.string(),
  answeredAt: z.number(),
  outcome: decisionOutcome.nullable(),
});
/** A decision as `decisions` answers it and the window shows it. */
export const decisionItem = z.discriminatedUnion('state', [openDecisionItem, answeredDecisionItem]);
export type DecisionItem = z.output<typeof decisionItem>;
export type AnsweredDecision = z.output<typeof answeredDecisionItem>;

/** The occupant a restart or fresh start ends: its session, pane and agent (or the pane's) pid. */
export const paneStop = z.strictObject({ sessionId: z.string(), paneId: z.string(), pid: int });

/**
 * `restart --keep-conversation`: lost is the agent process (`stop.pid`); kept are the
 * conversation (`conversationId`, named by that process), the pane and its session (`samePane`).
 */
export const restartPlan = z.strictObject({
  seat: z.string(),
  stop: paneStop,
  launch: z.literal('resume'),
  conversationId: z.string(),
  samePane: z.literal(true),
});
export type RestartPlan = z.output<typeof restartPlan>;

/**
 * `fresh --reason`: lost is the running occupant (`stop`, absent when none runs); the seat's
 * conversation (`previousConversationId`) stays on disk but is no longer the seat's. After a real
 * start `conversationId` is the new one, when the agent has named it.
 */
export const freshPlan = z.strictObject({
  seat: z.string(),
  stop: paneStop.optional(),
  launch: z.literal('fresh'),
  previousConversationId: z.string().optional(),
  conversationId: z.string().optional(),
});
export type FreshPlan = z.output<typeof freshPlan>;

/**
 * `fork --as`: nothing is lost; the source seat and its conversation `from` are read, never written.
 * The new seat `seat` gets a new conversation: chosen at launch (Claude) or named by its lock (Codex).
 */
export const forkPlan = z.strictObject({
  source: z.string(),
  seat: z.string(),
  runtime: z.string(),
  from: z.string(),
  /** Where `from` came from: the source's live process (`roster:<claim>`, pid, pane) or the store. */
  fromEvidence: z.strictObject({ source: z.string(), pid: int.optional(), paneId: z.string().optional() }),
  conversationId: z.string().optional(),
  transcript: z.string(),
  sourceRunning: z.boolean(),
});
export type ForkPlan = z.output<typeof forkPlan>;

const forkBase = { seat: z.string(), why: z.string(), from: z.string(), paneId: z.string(), sessionId: z.string() };
export const forkResult = z.discriminatedUnion('outcome', [
  /** Proven: a process in the new pane names the new conversation, and no report says `from` is missing. */
  z.strictObject({
    ...forkBase,
    outcome: z.literal('forked'),
    conversationId: z.string(),
    pid: int,
    evidence: z.strictObject({ source: z.string() }),
  }),
  z.strictObject({
    ...forkBase,
    outcome: z.literal('attention_required'),
    conversationId: z.string().optional(),
    evidence: z.strictObject({ reason: z.string(), screen: z.string() }),
  }),
]);
export type ForkResult = z.output<typeof forkResult>;

/** A `--plan` answers its plan alone; a real run answers the plan and what it did. */
export const restartAnswer = z.union([
  z.strictObject({ plan: restartPlan }),
  z.strictObject({ plan: restartPlan, result: z.discriminatedUnion('outcome', [resumedResult, attentionResult]) }),
]);
export const freshAnswer = z.union([
  z.strictObject({ plan: freshPlan }),
  z.strictObject({ plan: freshPlan, result: z.discriminatedUnion('outcome', [freshResult, attentionResult]) }),
]);
export const forkAnswer = z.union([
  z.strictObject({ plan: forkPlan }),
  z.strictObject({ plan: forkPlan, result: forkResult }),
]);

export type RestartAnswer = z.output<typeof restartAnswer>;
export type FreshAnswer = z.output<typeof freshAnswer>;
export type ForkAnswer = z.output<typeof forkAnswer>;

export const reconcileReport = z.strictObject({
  ended: z.array(z.strictObject({ seat: z.string(), sessionId: z.string(), paneId: z.string() })),
  /** Each stale reservation settled by census, or the code that kept it (a live holder). */
  reservations: z.array(
    z.strictObject({
      seat: z.string(),
      reservation: int,
      outcome: z.union([z.enum(['abandoned', 'adopted']), z.enum(ERROR_CODES)]),
    }),
  ),
  interruptedRuns: z.array(int),
  /** Recorded and left alone: never deleted, never killed. */
  unexplained: z.array(
    z.discriminatedUnion('what', [
      z.strictObject({
        what: z.literal('session'),
        detail: z.strictObject({ sessionRow: int, server: z.string(), why: z.string() }),
      }),
      z.strictObject({
        what: z.literal('pane'),
        detail: z.strictObject({ seatTag: z.string(), paneId: z.string(), sessionId: z.string(), attempt: z.string() }),
      }),
    ]),
  ),
});
export type ReconcileReport = z.output<typeof reconcileReport>;
