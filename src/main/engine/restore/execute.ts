import type { Slots } from '../seats/lanes';
import type { DecisionItem, DecisionReason, SeatAction, SeatPlan, SeatResult } from '../../../shared/contract';
import type { Ports } from '../ports';
import { keepsConversations, runtimeById } from '../runtimes';
import { launchSeat } from '../seats/launch';
import type { SeatRow, SessionRow } from '../store';
import { choicesFor } from './decide';
import { atFault } from '../faults';
import { watchStart } from './watch-start';
import type { RestoreReads } from './reads';
import {
  DEFAULT_VERIFY,
  sharedObserver,
  sharedRoster,
  verifyConversation,
  type ObserverSource,
  type RosterSource,
  type Verdict,
  type VerifyOptions,
} from './verify';
import type { RestorePorts, VerifyPorts } from './ports';

/**
 * Carries one seat's plan out: launch behind the fence, prove the resume, roll back or keep the
 * pane. What each seat ends as is the contract's SeatResult (shared/contract/restore-results.ts).
 */

export type { SeatResult };

export interface ExecContext {
  rig: string;
  snapshotId: number | null;
  verify: VerifyOptions;
  roster: RosterSource;
  /** One batched observeSeats per tick for every seat watched at the same moment. */
  observer: ObserverSource;
  /** Launches of this run at once (seats/lanes.ts): the proof waits after them are not bounded. */
  launches?: Slots;
  /** The run's roster reads, shared by its launches and its proofs (reads.ts); `roster` is its proofs' side. */
  reads?: RestoreReads;
}

export function execContext(
  ports: VerifyPorts,
  rig: string,
  snapshotId: number | null,
  verify: Partial<VerifyOptions> = {},
): ExecContext {
  return {
    rig,
    snapshotId,
    verify: { ...DEFAULT_VERIFY, ...verify },
    roster: sharedRoster(ports),
    observer: sharedObserver(ports),
  };
}

/** Every `awaiting_decision` is a durable row; a second restore refreshes the open one instead of asking twice. */
export function openDecision(
  ports: Pick<Ports, 'store'>,
  seat: SeatRow,
  reason: DecisionReason,
  conversationId: string | null,
  snapshotId: number | null,
  evidence: Record<string, unknown>,
): DecisionItem {
  const repos = ports.store.restore;
  const adapter = runtimeById(seat.runtime);
  const { row, created } = repos.decisions.open({
    seat: seat.seat,
    rig: seat.rig,
    reason,
    runtime: seat.runtime,
    conversationId,
    snapshotId,
    choices: choicesFor(reason, conversationId, adapter?.canResume ?? false),
    evidence,
  });
  if (created)
    repos.event(
      'decision.opened',
      { rig: seat.rig, seat: seat.seat },
      { decision: row.id, reason, conversationId, choices: row.choices },
    );
  return row;
}

const CUSTODY_CODES = new Set(['CONVERSATION_LIVE_ELSEWHERE', 'CONVERSATION_OWNER_UNKNOWN', 'EVIDENCE_UNREADABLE']);

export async function executePlan(ports: RestorePorts, plan: SeatPlan, ctx: ExecContext): Promise<SeatResult> {
  const seat = ports.store.rigs.seat(plan.seat);
  const base = { seat: plan.seat, plan: plan.action, why: plan.why };
  if (!seat) return { ...base, outcome: 'failed', code: 'SEAT_NOT_FOUND', why: 'the seat is no longer in the store' };
  if (plan.action === 'awaiting_decision') {
    const d = openDecision(ports, seat, plan.reason, plan.conversationId, ctx.snapshotId, { why: plan.why });
    return {
      ...base,
      outcome: 'awaiting_decision',
      decisionId: d.id,
      ...(plan.conversationId ? { conversationId: plan.conversationId } : {}),
    };
  }
  if (plan.action === 'refused')
    return { ...base, outcome: 'refused', code: plan.code, ...(plan.evidence ? { evidence: plan.evidence } : {}) };
  switch (plan.action) {
    case 'verify_running':
      return verifyRunning(ports, seat, plan.conversationId, ctx, base);
    case 'fresh':
      return launchFresh(ports, seat, base, ctx);
    case 'resume':
      return launchResume(ports, seat, plan.conversationId, ctx, base);
    case 'skipped_stopped':
    case 'skipped_policy':
      return { ...base, outcome: plan.action };
  }
}

type Base = { seat: string; plan: SeatAction; why: string };

/**
 * A launch in the run's slots, reading its custody roster from the run's shared reads (reads.ts):
 * a read begun after it asked and after the run's launches ahead of it ended.
 */
function inSlot<T>(
  ports: RestorePorts,
  ctx: ExecContext | undefined,
  launch: (ports: RestorePorts) => Promise<T>,
): Promise<T> {
  const run = async () => {
    const share = ctx?.reads?.launch();
    try {
      return await launch(share ? { ...ports, roster: share.roster } : ports);
    } finally {
      share?.done();
    }
  };
  return ctx?.launches ? ctx.launches.run(run) : run();
}

export async function launchFresh(
  ports: RestorePorts,
  seat: SeatRow,
  base: Base,
  ctx?: ExecContext,
): Promise<SeatResult> {
  const l = await inSlot(ports, ctx, (p) => launchSeat(p, seat.seat, { fresh: true }));
  if (!l.ok && l.code === 'SEAT_ALREADY_RUNNING')
    return { ...base, outcome: 'running', why: l.message, ...(l.evidence ? { evidence: l.evidence } : {}) };
  if (!l.ok)
    return {
      ...base,
      outcome: CUSTODY_CODES.has(l.code) ? 'refused' : 'failed',
      code: l.code,
      why: l.message,
      ...(l.evidence ? { evidence: l.evidence } : {}),
    };
  await atFault(ports.faults, 'restore.after_launch');
  const at = {
    paneId: l.launched.paneId,
    sessionId: l.launched.sessionId,
    ...(l.launched.conversationId ? { conversationId: l.launched.conversationId } : {}),
  };
  const live = ports.store.sessions.live(seat.seat);
  if (!keepsConversations(seat.runtime) || !live || live.sessionId !== l.launched.sessionId)
    return { ...base, outcome: 'fresh', ...at };
  // An agent started fresh may still stop at a dialog (trust, login): that is attention, not a start.
  const w = await watchStart(ports, seat, live, ctx ?? execContext(ports, seat.rig, null));
  if (w.outcome === 'fresh')
    return {
      ...base,
      outcome: 'fresh',
      ...at,
      ...(w.conversationId ? { conversationId: w.conversationId } : {}),
      ...(w.evidence ? { evidence: w.evidence } : {}),
    };
  if (w.outcome === 'attention_required')
    return {
      ...base,
      outcome: 'attention_required',
      why: `the agent is up but waiting on a ${w.reason.replace('_', ' ')}; the pane is kept`,
      ...at,
      evidence: { reason: w.reason, screen: w.screen },
    };
  return { ...base, outcome: 'failed', code: w.code, why: w.why, ...at, evidence: { screen: w.screen } };
}

export async function launchResume(
  ports: RestorePorts,
  seat: SeatRow,
  conversationId: string,
  ctx: ExecContext,
  base: Base,
): Promise<SeatResult> {
  if (seat.conversationId !== conversationId) {
    // Restoring a snapshot whose conversation differs from the seat's latest: the snapshot wins, on record.
    ports.store.rigs.setConversation(seat.seat, conversationId);
    ports.store.restore.event(
      'restore.seat',
      { rig: seat.rig, seat: seat.seat },
      { step: 'conversation_set', from: seat.conversationId, to: conversationId },
    );
  }
  const l = await inSlot(ports, ctx, (p) => launchSeat(p, seat.seat, {}));
  if (!l.ok) {
    if (l.code === 'SEAT_ALREADY_RUNNING') return verifyRunning(ports, seat, conversationId, ctx, base);
    return {
      ...base,
      outcome: CUSTODY_CODES.has(l.code) ? 'refused' : 'failed',
      code: l.code,
      why: l.message,
      conversationId,
      ...(l.evidence ? { evidence: l.evidence } : {}),
    };
  }
  await atFault(ports.faults, 'restore.after_launch');
  const live = ports.store.sessions.live(seat.seat);
  if (!live || live.sessionId !== l.launched.sessionId)
    return {
      ...base,
      outcome: 'failed',
      code: 'TARGET_CHANGED',
      why: 'the session row changed under the restore',
      conversationId,
    };
  const verdict = await verifyConversation(ports, live, conversationId, ctx.verify, ctx);
  return settleVerdict(ports, seat, live, conversationId, verdict, ctx, base, 'resumed');
}

async function verifyRunning(
  ports: RestorePorts,
  seat: SeatRow,
  conversationId: string | null,
  ctx: ExecContext,
  base: Base,
): Promise<SeatResult> {
  const live = ports.store.sessions.live(seat.seat);
  const at = live ? { paneId: live.paneId, sessionId: live.sessionId } : {};
  if (!live || conversationId === null || !keepsConversations(seat.runtime))
    return { ...base, outcome: 'running', ...at };
  // Nothing was launched: a short look, only to catch a "conversation missing" left on its screen.
  const verdict = await verifyConversation(
    ports,
    live,
    conversationId,
    { ...ctx.verify, timeoutMs: Math.min(ctx.verify.timeoutMs, ctx.verify.quietMs + 3000) },
    ctx,
  );
  if (verdict.verdict === 'unproven')
    return {
      ...base,
      outcome: 'running',
      ...at,
      conversationId,
      evidence: { unproven: true, agentConversation: verdict.agentConversation },
    };
  return settleVerdict(ports, seat, live, conversationId, verdict, ctx, base, 'running');
}

export async function settleVerdict(
  ports: Pick<Ports, 'client' | 'faults' | 'store'>,
  seat: SeatRow,
  live: SessionRow,
  conversationId: string,
  v: Verdict,
  ctx: ExecContext,
  base: Base,
  ok: 'resumed' | 'running',
): Promise<SeatResult> {
  const at = { paneId: live.paneId, sessionId: live.sessionId, conversationId };
  switch (v.verdict) {
    case 'resumed':
      return { ...base, outcome: ok, ...at, pid: v.pid, evidence: { source: v.source } };
    // Up, but a dialog stands between it and its conversation: the person answers it in the pane.
    case 'attention':
      return {
        ...base,
        outcome: 'attention_required',
        why: `the agent is up but waiting on a ${v.reason.replace('_', ' ')}; the pane is kept`,
        ...at,
        ...(v.pid ? { pid: v.pid } : {}),
        evidence: {
          reason: v.reason,
          screen: v.screen,
          ...(v.conversationId ? { agentConversation: v.conversationId } : {}),
        },
      };
    case 'missing':
      return rollback(ports, seat, live, conversationId, v.screen, ctx, base);
    // Any other failure keeps the pane so its output can be read (docs/architecture.md invariant 7).
    case 'exited':
      return {
        ...base,
        outcome: 'failed',
        code: 'AGENT_EXITED',
        why: 'the agent exited without naming its conversation; the pane is kept',
        ...at,
        evidence: { screen: v.screen },
      };
    case 'gone':
      return {
        ...base,
        outcome: 'failed',
        code: 'SEAT_NOT_RUNNING',
        why: "the seat's session vanished while it was being verified",
        ...at,
      };
    case 'unproven':
      return {
        ...base,
        outcome: 'failed',
        code: 'RESUME_UNPROVEN',
        why: `no process in the pane named ${conversationId} within ${ctx.verify.timeoutMs} ms; the pane is kept`,
        ...at,
        evidence: { screen: v.screen, agentConversation: v.agentConversation },
      };
  }
}

/** The runtime said the conversation is gone: remove exactly our pane, then ask the person. */
async function rollback(
  ports: Pick<Ports, 'client' | 'faults' | 'store'>,
  seat: SeatRow,
  live: SessionRow,
  conversationId: string,
  screen: string,
  ctx: ExecContext,
  base: Base,
): Promise<SeatResult> {
  await atFault(ports.faults, 'restore.before_rollback');
  const kill = await ports.client(live.server).killByIdentity(live);
  const where = { rig: seat.rig, seat: seat.seat };
  const repos = ports.store.restore;
  if (kill.outcome === 'not_removed') {
    repos.event('restore.rolled_back', where, {
      sessionId: live.sessionId,
      paneId: live.paneId,
      removed: false,
      why: kill.why,
    });
    return {
      ...base,
      outcome: 'failed',
      code: 'NOT_REMOVED',
      why: `the runtime reported ${conversationId} missing, but its pane was not removed (${kill.why})`,
      paneId: live.paneId,
      sessionId: live.sessionId,
      conversationId,
    };
  }
  ports.store.db
    .transaction(() => {
      ports.store.sessions.end(live.id, 'conversation_missing');
      repos.event('restore.rolled_back', where, {
        sessionId: live.sessionId,
        paneId: live.paneId,
        removed: kill.outcome,
        conversationId,
        screen,
      });
    })
    .immediate();
  await atFault(ports.faults, 'restore.after_rollback_kill');
  const d = openDecision(ports, seat, 'conversation_missing_reported', conversationId, ctx.snapshotId, {
    screen,
    paneRemoved: kill.outcome,
  });
  return {
    ...base,
    outcome: 'awaiting_decision',
    why: `${seat.runtime} reported conversation ${conversationId} missing; its pane was removed`,
    decisionId: d.id,
    conversationId,
    evidence: { screen },
  };
}
