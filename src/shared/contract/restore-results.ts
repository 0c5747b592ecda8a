import { z } from 'zod';
import { ERROR_CODES } from '../errors';

/**
 * What restore decides and does per seat (docs/architecture.md invariant 7): the decision
 * table's plan, a `--plan` preview, and the result of a real run, each as one schema. The
 * engine builds these values; the CLI and the window read them.
 */

const int = z.number().int();
const code = z.enum(ERROR_CODES);
const evidence = z.record(z.string(), z.unknown());

/** Whether a conversation's transcript is where its runtime keeps it. */
export const transcriptFact = z.discriminatedUnion('state', [
  z.strictObject({ state: z.literal('present'), path: z.string() }),
  z.strictObject({ state: z.literal('missing'), looked: z.string() }),
  /** The runtime keeps no findable transcript: only its own resume can tell. */
  z.strictObject({ state: z.literal('unknown') }),
  /** A probe failed (permissions, I/O): fail closed. */
  z.strictObject({ state: z.literal('unreadable'), error: z.string() }),
]);
export type TranscriptFact = z.output<typeof transcriptFact>;

/** Why only a person may settle a seat. */
export const decisionReason = z.enum([
  'transcript_missing',
  'runtime_cannot_resume',
  'conversation_unrecorded',
  'evidence_unreadable',
  'conversation_missing_reported',
  /** A pod's or rig's daily budget: raise it in the spec, or release it for today. */
  'budget_reached',
]);
export type DecisionReason = z.output<typeof decisionReason>;

export const seatAction = z.enum([
  'resume',
  'fresh',
  'verify_running',
  'awaiting_decision',
  'skipped_stopped',
  'skipped_policy',
  'refused',
]);
export type SeatAction = z.output<typeof seatAction>;

/** What became of a seat (or, in a preview, what would). `skipped_policy` is a policy of never. */
export const seatOutcome = z.enum([
  'resumed',
  'fresh',
  'running',
  'awaiting_decision',
  'attention_required',
  'failed',
  'refused',
  'skipped_stopped',
  'skipped_policy',
]);
export type SeatOutcome = z.output<typeof seatOutcome>;

export const rigOutcome = z.enum(['fully_restored', 'partially_restored', 'failed']);
export type RigOutcome = z.output<typeof rigOutcome>;

const planned = { planned: seatOutcome.optional() };
const plan = {
  resume: z.strictObject({
    seat: z.string(),
    action: z.literal('resume'),
    conversationId: z.string(),
    why: z.string(),
  }),
  fresh: z.strictObject({ seat: z.string(), action: z.literal('fresh'), why: z.string() }),
  verifyRunning: z.strictObject({
    seat: z.string(),
    action: z.literal('verify_running'),
    conversationId: z.string().nullable(),
    why: z.string(),
  }),
  awaiting: z.strictObject({
    seat: z.string(),
    action: z.literal('awaiting_decision'),
    reason: decisionReason,
    conversationId: z.string().nullable(),
    why: z.string(),
  }),
  skippedStopped: z.strictObject({ seat: z.string(), action: z.literal('skipped_stopped'), why: z.string() }),
  skippedPolicy: z.strictObject({ seat: z.string(), action: z.literal('skipped_policy'), why: z.string() }),
  refused: z.strictObject({
    seat: z.string(),
    action: z.literal('refused'),
    code: z.enum([
      'CONVERSATION_LIVE_ELSEWHERE',
      'EVIDENCE_UNREADABLE',
      'CONVERSATION_OWNER_UNKNOWN',
      'RUNTIME_UNKNOWN',
    ]),
    why: z.string(),
    evidence: evidence.optional(),
  }),
};

/** The decision table's answer for one seat. */
export const seatPlan = z.discriminatedUnion('action', [
  plan.resume,
  plan.fresh,
  plan.verifyRunning,
  plan.awaiting,
  plan.skippedStopped,
  plan.skippedPolicy,
  plan.refused,
]);
export type SeatPlan = z.output<typeof seatPlan>;

/** A plan as restore reports it: with the outcome it has before anything launches, where it has one. */
export const seatPlanView = z.discriminatedUnion('action', [
  plan.resume.extend(planned),
  plan.fresh.extend(planned),
  plan.verifyRunning.extend(planned),
  plan.awaiting.extend(planned),
  plan.skippedStopped.extend(planned),
  plan.skippedPolicy.extend(planned),
  plan.refused.extend(planned),
]);
export type SeatPlanView = z.output<typeof seatPlanView>;

/** A `--plan` row: what each seat would end as if every launch succeeded; nothing has run. */
export const seatPreview = z.strictObject({
  seat: z.string(),
  plan: seatAction,
  outcome: seatOutcome,
  why: z.string(),
  code: code.optional(),
  evidence: evidence.optional(),
});
export type SeatPreview = z.output<typeof seatPreview>;

const base = { seat: z.string(), plan: seatAction, why: z.string() };
/** Where the seat's pane is (its tmux session `$id` and `%pane`). */
const at = { paneId: z.string(), sessionId: z.string() };
const atMaybe = { paneId: z.string().optional(), sessionId: z.string().optional() };

/** Up on its conversation, proven: a process in the pane names it (`source`: argv, live state, lock). */
export const resumedResult = z.strictObject({
  ...base,
  outcome: z.literal('resumed'),
  ...at,
  conversationId: z.string(),
  pid: int,
  evidence: z.strictObject({ source: z.string() }),
});
/** Its session was running already: checked, not relaunched (`evidence.unproven` when no process named it). */
export const runningResult = z.strictObject({
  ...base,
  outcome: z.literal('running'),
  ...atMaybe,
  conversationId: z.string().optional(),
  pid: int.optional(),
  evidence: evidence.optional(),
});
/** Started on a new conversation (named once the agent proves one). */
export const freshResult = z.strictObject({
  ...base,
  outcome: z.literal('fresh'),
  ...at,
  conversationId: z.string().optional(),
  /** The screen never showed a known state; the agent counted as started after a quiet time. */
  evidence: z.strictObject({ screenState: z.literal('unknown'), agentSeen: z.boolean().optional() }).optional(),
});
/** Nothing was started: a person decides (decision `decisionId`); `evidence.screen` when the runtime said why. */
export const awaitingResult = z.strictObject({
  ...base,
  outcome: z.literal('awaiting_decision'),
  decisionId: int,
  conversationId: z.string().optional(),
  evidence: z.strictObject({ screen: z.string() }).optional(),
});
/** Up, but a dialog (trust, login, permission) stands in front of it; the pane is kept for the person. */
export const attentionResult = z.strictObject({
  ...base,
  outcome: z.literal('attention_required'),
  ...at,
  conversationId: z.string().optional(),
  pid: int.optional(),
  evidence: z.strictObject({ reason: z.string(), screen: z.string(), agentConversation: z.string().optional() }),
});
/** It did not come back; a pane that was started is kept so its output can be read. */
export const failedResult = z.strictObject({
  ...base,
  outcome: z.literal('failed'),
  code,
  ...atMaybe,
  conversationId: z.string().optional(),
  pid: int.optional(),
  evidence: evidence.optional(),
});
/** Custody or a host refused it before anything was created. */
export const refusedResult = z.strictObject({
  ...base,
  outcome: z.literal('refused'),
  code,
  conversationId: z.string().optional(),
  evidence: evidence.optional(),
});
export const skippedStoppedResult = z.strictObject({ ...base, outcome: z.literal('skipped_stopped') });
export const skippedPolicyResult = z.strictObject({ ...base, outcome: z.literal('skipped_policy') });

/** One seat after a real restore (or a decision's, restart's or fresh start's launch). */
export const seatResult = z.discriminatedUnion('outcome', [
  resumedResult,
  runningResult,
  freshResult,
  awaitingResult,
  attentionResult,
  failedResult,
  refusedResult,
  skippedStoppedResult,
  skippedPolicyResult,
]);
export type SeatResult = z.output<typeof seatResult>;

const report = { rig: z.string(), outcome: rigOutcome, plan: z.array(seatPlanView) };
/**
 * `restore`: a `--plan` (planOnly, nothing launched; `snapshotId` null when it read the live
 * store) or a real run (always on a snapshot it took or was given).
 */
export const restoreReport = z.discriminatedUnion('planOnly', [
  z.strictObject({ ...report, planOnly: z.literal(true), snapshotId: int.nullable(), seats: z.array(seatPreview) }),
  z.strictObject({ ...report, planOnly: z.literal(false), snapshotId: int, seats: z.array(seatResult) }),
]);
export type RestoreReport = z.output<typeof restoreReport>;
