import type { AnswerOf, RequestOf } from '../../../shared/contract';
import { fail, type Result } from '../../../shared/errors';
import { sendToSeat } from '../delivery/send';
import type { Engine } from '../engine';
import { budgetHold, liveBudgetDeps } from '../usage/budget-live';

/** How often a send waiting at a reached budget looks whether it was released or raised. */
const BUDGET_POLL_MS = 1000;

/**
 * `send`: a reached budget of the seat's pod (or rig) parks it first, before anything is looked at
 * or typed: with `waitForIdle` it waits, up to that long, for the budget to be released or raised;
 * without, it is held at once, naming the decision that releases it. A forced send (with its
 * reason) types over a budget as over any other hold, and the override is recorded.
 */
export async function budgetedSend(engine: Engine, p: RequestOf<'send'>): Promise<Result<AnswerOf<'send'>>> {
  const ports = engine.ports;
  const opts = { waitForIdle: p.waitForIdle, force: p.force, reason: p.reason, verify: p.verify };
  const found = ports.store.rigs.find(p.seat);
  if (!found.ok || !ports.store.sessions.live(found.seat.seat)) return sendToSeat(ports, p.seat, p.text, opts);
  const seat = found.seat;
  const start = ports.clock.now();
  const deadline = start + (p.waitForIdle ?? 0) * 1000;
  for (;;) {
    const hold = budgetHold(liveBudgetDeps(ports), ports, seat, 'send');
    if (!hold.held) break;
    const where = { rig: seat.rig, seat: seat.seat };
    if (p.force) {
      ports.store.events.append('seat.send_override', where, { why: 'budget', reason: p.reason });
      break;
    }
    if (ports.clock.now() >= deadline) {
      const id = hold.budget.decisionId;
      const held = fail('SEND_HELD', `held: ${hold.why}; nothing was typed`, {
        hint:
          id !== undefined
            ? `Release it for today: rigdesk decide ${id} release --reason "<why>"; or raise the budget in the spec and rigdesk up it again.`
            : 'Raise the budget in the spec and rigdesk up it again.',
        evidence: { status: 'held', why: 'budget', budget: hold.budget, ...(id !== undefined ? { decision: id } : {}) },
      });
      ports.store.events.append('seat.send_held', where, {
        code: held.code,
        message: held.message,
        evidence: held.evidence ?? {},
      });
      return held;
    }
    await ports.clock.sleep(Math.min(BUDGET_POLL_MS, deadline - ports.clock.now()));
  }
  const left = p.waitForIdle === undefined ? undefined : Math.max(0, (deadline - ports.clock.now()) / 1000);
  return sendToSeat(ports, seat.seat, p.text, { ...opts, ...(left !== undefined ? { waitForIdle: left } : {}) });
}
