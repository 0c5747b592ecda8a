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
  if (d.kind === 'budget') return releaseBudget(ports, d, reason);
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

/**
 * A budget decision answered `release`: the scope's wakes and sends run for the rest of its day.
 * The other seats' open decisions about the same budget are answered with it (one release frees
 * the pod), and their parked wakes are due at once rather than at their next recheck.
 */
function releaseBudget(
  ports: Pick<Ports, 'store' | 'clock'>,
  d: DecisionItem,
  reason: string,
): Result<{ decision: AnsweredDecision; result: DecisionOutcome }> {
  const repos = ports.store.restore;
  const key = String(d.evidence.budget);
  const day = String(d.evidence.day);
  const scope = d.evidence.scope === 'rig' ? ('rig' as const) : ('pod' as const);
  const name = String(d.evidence.name);
  const others = repos.decisions.budgetFor(key, day).open.filter((o) => o.id !== d.id);
  if (!repos.decisions.answer(d.id, 'release', reason))
    return fail('DECISION_ALREADY_ANSWERED', `decision ${d.id} was answered by someone else a moment ago`);
  const why = `released for ${day} by decision ${d.id}: ${reason}`;
  for (const decided of [d, ...others]) {
    if (decided !== d && !repos.decisions.answer(decided.id, 'release', `with decision ${d.id}: ${reason}`)) continue;
    const result: DecisionOutcome = { seat: decided.seat, outcome: 'released', scope, name, day, why };
    repos.decisions.setOutcome(decided.id, result);
    const where = { rig: decided.rig, seat: decided.seat };
    repos.event('decision.answered', where, { decision: decided.id, choice: 'release', reason });
    ports.store.events.append('budget.released', where, { decision: decided.id, budget: key, day, by: d.id });
    const wakes = ports.store.queue.wakes;
    for (const w of wakes.unfinished(decided.seat))
      if (w.state === 'parked' && w.lastResult === 'budget')
        wakes.release(w, { state: 'parked', lastResult: 'budget_released', nextAt: ports.clock.now(), attempts: 0 });
  }
  const answered = repos.decisions.get(d.id);
  if (answered?.state !== 'answered' || !answered.outcome)
    return fail('STORE_FAILED', `decision ${d.id} was answered but does not read back as answered`);
  return { ok: true, decision: answered, result: answered.outcome };
}
