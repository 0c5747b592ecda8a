import type { SeatBudget } from '../../../shared/contract';
import type { Ports } from '../ports';
import type { SeatRow } from '../store';
import { type BudgetDeps, budgetWhy, localDay, localDayStart, seatBudget, type Spent } from './budget';
import type { UsagePorts } from './live';
import { summarize } from './summary';

/**
 * The budgets' live deps: the recorded spec's budgets, today's spending from the usage samples (the
 * same sums `rigdesk usage --by pod` gives), and the budget decisions. One deps object a pass: the
 * held minutes are written first and each rig's spending read once.
 */
export function liveBudgetDeps(
  ports: Pick<Ports, 'store' | 'clock'> & Partial<Pick<UsagePorts, 'usageBook'>>,
): BudgetDeps {
  ports.usageBook?.sampler.flush();
  const repo = ports.store.usageSamples;
  const spentOf = new Map<string, ReturnType<BudgetDeps['spent']>>();
  // Read once a rig a pass: each read parses the rig's whole recorded spec, and `ps` asks for every
  // seat (200 parses of a 200-seat spec took 190 ms of every ps, bench/window-200).
  const budgetsOf = new Map<string, ReturnType<BudgetDeps['budgets']>>();
  return {
    now: () => ports.clock.now(),
    dayOf: localDay,
    dayStart: localDayStart,
    budgets(rig) {
      let b = budgetsOf.get(rig);
      if (!b) budgetsOf.set(rig, (b = ports.store.rigs.budgets(rig)));
      return b;
    },
    spent(rig, since) {
      const key = `${rig}\0${since}`;
      const hit = spentOf.get(key);
      if (hit) return hit;
      const q = { rig, since, until: ports.clock.now() };
      const samples = repo.list(q);
      const baselines = repo.baselines(q);
      const toSpent = (r: { tokensIn: number; tokensOut: number; costUsd?: number; costPartial?: boolean }): Spent => ({
        tokens: r.tokensIn + r.tokensOut,
        ...(r.costUsd !== undefined && !r.costPartial ? { usd: r.costUsd } : {}),
      });
      const pods = new Map(summarize(samples, baselines, 'pod', localDay).map((r) => [r.key, toSpent(r)]));
      const whole = summarize(samples, baselines, 'rig', localDay)[0];
      const out = { pods, rig: whole ? toSpent(whole) : { tokens: 0 } };
      spentOf.set(key, out);
      return out;
    },
    decisions(key, day) {
      const d = ports.store.restore.decisions.budgetFor(key, day);
      return {
        ...(d.open[0] ? { open: d.open[0].id } : {}),
        ...(d.release ? { release: d.release.id } : {}),
      };
    },
  };
}

export type BudgetHold = { held: false; budget?: SeatBudget } | { held: true; budget: SeatBudget; why: string };

/**
 * Whether a seat's budget parks what would be typed into it now (a wake, a send). Over budget, the
 * seat gets its decision ("raise it, or release for today") if it has none open, with one event.
 * A seat with a restore decision open keeps that one; its wakes and sends park all the same.
 */
export function budgetHold(deps: BudgetDeps, ports: Pick<Ports, 'store'>, seat: SeatRow, what: string): BudgetHold {
  const b = seatBudget(deps, seat);
  if (!b || b.state !== 'over') return { held: false, ...(b ? { budget: b } : {}) };
  const why = budgetWhy(b);
  if (b.decisionId !== undefined && ports.store.restore.decisions.openFor(seat.seat)?.id === b.decisionId)
    return { held: true, budget: b, why };
  const opened = ports.store.restore.decisions.open({
    kind: 'budget',
    seat: seat.seat,
    rig: seat.rig,
    reason: 'budget_reached',
    runtime: seat.runtime,
    conversationId: null,
    snapshotId: null,
    choices: ['release'],
    evidence: {
      budget: `${b.scope}:${b.name}`,
      day: b.day,
      scope: b.scope,
      name: b.name,
      why,
      parked: what,
      ...(b.tokens ? { tokens: b.tokens } : {}),
      ...(b.usd ? { usd: b.usd } : {}),
    },
  });
  if (opened.row.kind !== 'budget') return { held: true, budget: b, why };
  if (opened.created) {
    const where = { rig: seat.rig, seat: seat.seat };
    ports.store.events.append('decision.opened', where, { decision: opened.row.id, reason: 'budget_reached' });
    ports.store.events.append('budget.reached', where, { decision: opened.row.id, budget: b, parked: what });
  }
  return { held: true, budget: { ...b, decisionId: opened.row.id }, why };
}
