import type {
  DecisionChoice,
  DecisionReason,
  RigOutcome,
  SeatOutcome,
  SeatPlan,
  TranscriptFact,
} from '../../../shared/contract';
import type { ErrorCode } from '../../../shared/errors';

/**
 * The restore decision table (docs/architecture.md invariant 7): pure, no tmux, no files. The live adapter
 * (./facts.ts) turns a snapshot and a fresh roster into `SeatFacts`; this module says what to do
 * with each seat. Rows are checked in order; the first that matches decides. Every row has a
 * test in test/restore/decide.test.ts. Its answer (SeatPlan) and the outcomes are the contract's.
 */

export type { DecisionChoice, DecisionReason, RigOutcome, SeatOutcome, SeatPlan, TranscriptFact };

export type LiveFact =
  | { state: 'free' }
  | { state: 'owned_elsewhere'; evidence: Record<string, unknown>; message: string }
  /** The guard could not prove who writes it (EVIDENCE_UNREADABLE, CONVERSATION_OWNER_UNKNOWN). */
  | { state: 'unprovable'; code: ErrorCode; evidence: Record<string, unknown>; message: string };

export interface SeatFacts {
  seat: string;
  runtime: string;
  runtimeKnown: boolean;
  canResume: boolean;
  /** `shell` and friends: a runtime with no conversation of its own. */
  hasConversations: boolean;
  restorePolicy: string;
  conversationId: string | null;
  stoppedOnPurpose: boolean;
  /** Has this seat ever had an occupant? An agent seat that ran but never bound an id may still have one. */
  everRan: boolean;
  /** Its own tmux session: running, gone/never, or unknown (its server could not be listed). */
  running: 'running' | 'not_running' | 'unknown';
  transcript: TranscriptFact;
  live: LiveFact;
}

export function decideSeat(f: SeatFacts): SeatPlan {
  const seat = f.seat;
  if (!f.runtimeKnown)
    return {
      seat,
      action: 'refused',
      code: 'RUNTIME_UNKNOWN',
      why: `runtime "${f.runtime}" is not known to this Rigdesk`,
    };
  // Its own session still runs: never launch a second one; only check what it runs.
  if (f.running === 'running')
    return { seat, action: 'verify_running', conversationId: f.conversationId, why: 'its session is still running' };
  if (f.running === 'unknown')
    return {
      seat,
      action: 'refused',
      code: 'EVIDENCE_UNREADABLE',
      why: 'cannot tell whether its own session still runs',
    };
  if (f.stoppedOnPurpose) return { seat, action: 'skipped_stopped', why: 'it was stopped on purpose' };
  if (f.restorePolicy === 'never') return { seat, action: 'skipped_policy', why: 'its restore policy is never' };
  if (!f.hasConversations) return { seat, action: 'fresh', why: 'its runtime keeps no conversation to lose' };
  // Policy fresh is the person's standing answer; a fresh start writes a new conversation, never the old one.
  if (f.restorePolicy === 'fresh') return { seat, action: 'fresh', why: 'its restore policy is fresh' };
  if (f.conversationId === null) {
    if (!f.everRan) return { seat, action: 'fresh', why: 'it has never run, so there is no conversation to lose' };
    return {
      seat,
      action: 'awaiting_decision',
      reason: 'conversation_unrecorded',
      conversationId: null,
      why: 'it ran before but no conversation id was recorded; a fresh start could orphan one',
    };
  }
  const cid = f.conversationId;
  // Custody before anything about the transcript: a conversation open elsewhere is refused outright.
  if (f.live.state === 'owned_elsewhere')
    return {
      seat,
      action: 'refused',
      code: 'CONVERSATION_LIVE_ELSEWHERE',
      why: f.live.message,
      evidence: f.live.evidence,
    };
  if (f.live.state === 'unprovable') {
    const code = f.live.code === 'CONVERSATION_OWNER_UNKNOWN' ? 'CONVERSATION_OWNER_UNKNOWN' : 'EVIDENCE_UNREADABLE';
    return { seat, action: 'refused', code, why: f.live.message, evidence: f.live.evidence };
  }
  if (!f.canResume)
    return {
      seat,
      action: 'awaiting_decision',
      reason: 'runtime_cannot_resume',
      conversationId: cid,
      why: `its runtime cannot resume conversation ${cid}`,
    };
  switch (f.transcript.state) {
    case 'present':
      return { seat, action: 'resume', conversationId: cid, why: `transcript present at ${f.transcript.path}` };
    case 'missing':
      return {
        seat,
        action: 'awaiting_decision',
        reason: 'transcript_missing',
        conversationId: cid,
        why: `no transcript for ${cid} (looked in ${f.transcript.looked})`,
      };
    case 'unreadable':
      return {
        seat,
        action: 'awaiting_decision',
        reason: 'evidence_unreadable',
        conversationId: cid,
        why: `transcript evidence unreadable: ${f.transcript.error}`,
      };
    // Resuming writes only the conversation we name; if it is gone the runtime says so and we roll back.
    case 'unknown':
      return {
        seat,
        action: 'resume',
        conversationId: cid,
        why: 'no transcript path is known for this runtime; the resume itself will tell',
      };
  }
}

const RESTORED: ReadonlySet<SeatOutcome> = new Set(['resumed', 'fresh', 'running']);
const NOT_COUNTED: ReadonlySet<SeatOutcome> = new Set(['skipped_stopped', 'skipped_policy']);

/**
 * Seats stopped on purpose or by policy do not make a rig degraded. Of the rest: all restored is
 * full, anything between is partial, none restored is failed. An agent that is up but waiting on
 * a dialog (attention_required) is not restored, yet it is not a failure either: a rig with one
 * reads partial, never failed. A rig with nothing to restore is full.
 */
export function rigOutcome(outcomes: readonly SeatOutcome[]): RigOutcome {
  const counted = outcomes.filter((o) => !NOT_COUNTED.has(o));
  const ok = counted.filter((o) => RESTORED.has(o)).length;
  if (ok === counted.length) return 'fully_restored';
  return ok === 0 && !counted.includes('attention_required') ? 'failed' : 'partially_restored';
}

/** The outcome a plan has before anything launches (for --plan, and for seats that launch nothing). */
export function plannedOutcome(p: SeatPlan): SeatOutcome | undefined {
  switch (p.action) {
    case 'awaiting_decision':
    case 'skipped_stopped':
    case 'skipped_policy':
    case 'refused':
      return p.action;
    default:
      return undefined;
  }
}

/** Which answers make sense for a reason: resume only when there is an id to resume. */
export function choicesFor(
  reason: DecisionReason,
  conversationId: string | null,
  canResume: boolean,
): DecisionChoice[] {
  if (conversationId === null || !canResume || reason === 'runtime_cannot_resume') return ['fresh', 'leave_stopped'];
  return ['resume', 'fresh', 'leave_stopped'];
}
