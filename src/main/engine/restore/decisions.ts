import type { AnsweredDecision, DecisionChoice, DecisionItem, DecisionOutcome } from '../../../shared/contract';
import { fail, type Result } from '../../../shared/errors';
import type { Ports } from '../ports';
import { execContext, launchFresh, launchResume } from './execute';
import type { VerifyOptions } from './verify';
import type { RestorePorts } from './ports';

/**
 * Answering a restore decision. The answer is recorded (row + event) before anything launches, so
 * a crash after it cannot lose it; the launch itself re-checks custody with a fresh roster
 * (launchSeat does), and a refusal opens a new decision carrying the refusal as evidence.
 */

export function listDecisions(
  ports: Pick<Ports, 'store'>,
  filter: { rig?: string; all?: boolean },
): Result<{ decisions: DecisionItem[] }> {
  return { ok: true, decisions: ports.store.restore.decisions.list(filter) };
}

export async function answerDecision(
  ports: RestorePorts,
  id: number,
  choice: DecisionChoice,
  reason: string,
  verify: Partial<VerifyOptions> = {},
): Promise<Result<{ decision: AnsweredDecision; result: DecisionOutcome }>> {
  const repos = ports.store.restore;
  const d = repos.decisions.get(id);
  if (!d) return fail('DECISION_NOT_FOUND', `no decision ${id}`, { hint: 'rigdesk decisions lists the open ones.' });
  if (d.state !== 'open')
    return fail('DECISION_ALREADY_ANSWERED', `decision ${id} was already answered (${d.answer})`, {
      evidence: { decision: d },
    });
  if (!d.choices.includes(choice))
    return fail(
      'DECISION_CHOICE_INVALID',
      `decision ${id} does not offer "${choice}"; it offers ${d.choices.join(', ')}`,
      { evidence: { choices: d.choices } },
    );
  const seat = ports.store.rigs.seat(d.seat);
  if (!seat) return fail('SEAT_NOT_FOUND', `decision ${id} is about ${d.seat}, which is no longer recorded`);
  if (!repos.decisions.answer(id, choice, reason))
    return fail('DECISION_ALREADY_ANSWERED', `decision ${id} was answered by someone else a moment ago`);
  const where = { rig: d.rig, seat: d.seat };
  repos.event('decision.answered', where, { decision: id, choice, reason, conversationId: d.conversationId });

  const base = {
    seat: d.seat,
    plan: choice === 'resume' ? ('resume' as const) : ('fresh' as const),
    why: `decision ${id}: ${reason}`,
  };
  let result: DecisionOutcome;
  if (choice === 'leave_stopped') {
    ports.store.rigs.setStoppedOnPurpose(d.seat, true);
    result = { seat: d.seat, outcome: 'left_stopped' };
  } else if (choice === 'resume') {
    if (!d.conversationId) return fail('BAD_USAGE', `decision ${id} has no conversation to resume`);
    result = await launchResume(ports, seat, d.conversationId, execContext(ports, d.rig, d.snapshotId, verify), base);
  } else {
    result = await launchFresh(ports, seat, base, execContext(ports, d.rig, d.snapshotId, verify));
  }
  repos.decisions.setOutcome(id, result);
  // A refused launch is not an answer to the situation: ask again, with the refusal as evidence.
  if (result.outcome === 'refused') {
    const again = repos.decisions.open({
      seat: d.seat,
      rig: d.rig,
      reason: d.reason,
      runtime: d.runtime,
      conversationId: d.conversationId,
      snapshotId: d.snapshotId,
      choices: d.choices,
      evidence: {
        ...d.evidence,
        refusedAnswer: { decision: id, choice, code: result.code, why: result.why },
      },
    });
    if (again.created) repos.event('decision.opened', where, { decision: again.row.id, reason: d.reason, after: id });
  }
  const answered = repos.decisions.get(id);
  if (answered?.state !== 'answered')
    return fail('STORE_FAILED', `decision ${id} was answered but does not read back as answered`);
  return { ok: true, decision: answered, result };
}
