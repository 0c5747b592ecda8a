import { describe, expect, it } from 'vitest';
import {
  type BudgetDeps,
  budgetWhy,
  judge,
  reached,
  scopesOf,
  seatBudget,
  type Spent,
} from '../../../src/main/engine/usage/budget';

/** The pure budget decisions, over a deps object: which budget speaks for a seat, and when it parks. */

const DAY0 = new Date(2026, 11, 5, 0, 0, 0).getTime();
const NOW = DAY0 + 15 * 3600_000;

function deps(over: Partial<BudgetDeps> & { pods?: Record<string, Spent>; rigSpent?: Spent } = {}): BudgetDeps & {
  asked: { rig: string; since: number }[];
} {
  const asked: { rig: string; since: number }[] = [];
  return {
    now: () => NOW,
    dayOf: () => '2026-12-05',
    dayStart: () => DAY0,
    budgets: () => ({ pods: { team: { tokens: 1000 } }, rig: { usd: 2 } }),
    spent: (rig, since) => {
      asked.push({ rig, since });
      return { pods: new Map(Object.entries(over.pods ?? {})), rig: over.rigSpent ?? { tokens: 0 } };
    },
    decisions: () => ({}),
    ...over,
    asked,
  };
}
const seat = { rig: 'r', pod: 'team' };

describe('budgets', () => {
  it('a seat falls under its pod budget first, then its rig budget', () => {
    expect(scopesOf(seat, { pods: { team: { tokens: 5 } }, rig: { usd: 1 } }).map((s) => s.key)).toEqual([
      'pod:team@r',
      'rig:r',
    ]);
    expect(scopesOf({ rig: 'r', pod: 'other' }, { pods: { team: { tokens: 5 } } })).toEqual([]);
  });

  it('is reached at the limit, by tokens or by a priced cost; an unpriced cost never reaches a dollar limit', () => {
    expect(reached({ tokens: 100 }, { tokens: 99 })).toBe(false);
    expect(reached({ tokens: 100 }, { tokens: 100 })).toBe(true);
    expect(reached({ usd: 1 }, { tokens: 10 ** 9 })).toBe(false);
    expect(reached({ usd: 1 }, { tokens: 5, usd: 1 })).toBe(true);
    expect(reached({ tokens: 100, usd: 1 }, { tokens: 5, usd: 0.5 })).toBe(false);
  });

  it('under, over with its open decision, or released for today by the release decision', () => {
    const s = scopesOf(seat, { pods: { team: { tokens: 100 } } })[0]!;
    expect(judge(s, 'd', { tokens: 50 }, { open: 3 })).toMatchObject({
      state: 'under',
      tokens: { limit: 100, spent: 50 },
    });
    expect(judge(s, 'd', { tokens: 50 }, {}).decisionId).toBeUndefined();
    expect(judge(s, 'd', { tokens: 150 }, { open: 3 })).toMatchObject({ state: 'over', decisionId: 3 });
    expect(judge(s, 'd', { tokens: 150 }, { open: 4, release: 3 })).toMatchObject({ state: 'released', decisionId: 3 });
  });

  it("counts today's spending from the local day's start, the pod's before the rig's", () => {
    const d = deps({ pods: { 'team@r': { tokens: 400 } }, rigSpent: { tokens: 400, usd: 0.5 } });
    expect(seatBudget(d, seat)).toMatchObject({ scope: 'pod', name: 'team@r', day: '2026-12-05', state: 'under' });
    expect(d.asked).toEqual([{ rig: 'r', since: DAY0 }]);
  });

  it('the budget that parks speaks for the seat, whichever scope it is', () => {
    const rigOver = deps({ pods: { 'team@r': { tokens: 400 } }, rigSpent: { tokens: 400, usd: 2.5 } });
    expect(seatBudget(rigOver, seat)).toMatchObject({ scope: 'rig', state: 'over', usd: { limit: 2, spent: 2.5 } });
    const podOver = deps({ pods: { 'team@r': { tokens: 1000 } }, rigSpent: { tokens: 1000, usd: 2.5 } });
    expect(seatBudget(podOver, seat)).toMatchObject({ scope: 'pod', state: 'over' });
  });

  it('a released pod budget no longer parks, while an unreleased rig budget still does', () => {
    const d = deps({
      pods: { 'team@r': { tokens: 1000 } },
      rigSpent: { tokens: 1000, usd: 3 },
      decisions: (key) => (key === 'pod:team@r' ? { release: 7 } : { open: 8 }),
    });
    expect(seatBudget(d, seat)).toMatchObject({ scope: 'rig', state: 'over', decisionId: 8 });
    const podOnly = deps({
      budgets: () => ({ pods: { team: { tokens: 1000 } } }),
      pods: { 'team@r': { tokens: 1200 } },
      decisions: () => ({ release: 7 }),
    });
    expect(seatBudget(podOnly, seat)).toMatchObject({ state: 'released', decisionId: 7 });
  });

  it('a seat with no budget declared has none, and costs no reading of the samples', () => {
    const d = deps({ budgets: () => ({ pods: {} }) });
    expect(seatBudget(d, seat)).toBeUndefined();
    expect(d.asked).toEqual([]);
  });

  it('says what was reached and what the person may do', () => {
    const b = seatBudget(deps({ pods: { 'team@r': { tokens: 1200 } } }), seat)!;
    expect(budgetWhy(b)).toBe(
      'budget reached: pod team@r spent 1200 of 1000 tokens on 2026-12-05: raise it, or release for today',
    );
  });
});

describe('live budget deps', () => {
  it("read each rig's recorded spec once a pass, however many seats ask (ps asks for every seat)", async () => {
    const { liveBudgetDeps } = await import('../../../src/main/engine/usage/budget-live');
    const reads: string[] = [];
    const store = {
      rigs: {
        budgets: (rig: string) => (reads.push(rig), { pods: {} }),
      },
      usageSamples: {},
      restore: { decisions: {} },
    };
    const live = liveBudgetDeps({ store, clock: { now: () => NOW } } as unknown as Parameters<
      typeof liveBudgetDeps
    >[0]);
    for (let i = 0; i < 200; i++) live.budgets(i % 2 ? 'a' : 'b');
    expect(reads.sort()).toEqual(['a', 'b']);
    // A new pass reads again: a raised budget counts from the next look.
    liveBudgetDeps({ store, clock: { now: () => NOW } } as unknown as Parameters<typeof liveBudgetDeps>[0]).budgets(
      'a',
    );
    expect(reads).toHaveLength(3);
  });
});
