import type { SeatBudget } from '../../../shared/contract';
import type { BudgetSpec } from '../spec';

/**
 * Daily budgets (a rig's or a pod's `budget: {tokens, usd}`), as pure decisions over a deps object:
 * which budgets a seat falls under, what its scope spent today, and whether that parks its queue.
 * Reaching one only parks wakes and sends behind a decision; nothing running is ever stopped.
 */

export interface BudgetScope {
  scope: 'pod' | 'rig';
  /** `pod@rig` or the rig's name. */
  name: string;
  /** The decisions' key for it: `pod:pod@rig` or `rig:rig`. */
  key: string;
  limit: BudgetSpec;
}

/** What a scope spent today: tokens in and out; US dollars where every part of it had a price. */
export interface Spent {
  tokens: number;
  usd?: number;
}

export interface BudgetDeps {
  now(): number;
  /** The local day of a moment (`YYYY-MM-DD`) and when that day began (ms epoch). */
  dayOf(at: number): string;
  dayStart(at: number): number;
  budgets(rig: string): { rig?: BudgetSpec; pods: Record<string, BudgetSpec> };
  /** What the rig's seats spent since `since`, per pod (`pod@rig`) and for the whole rig. */
  spent(rig: string, since: number): { pods: ReadonlyMap<string, Spent>; rig: Spent };
  /** The budget decisions of a scope and day: the open one's id, and the release's. */
  decisions(key: string, day: string): { open?: number; release?: number };
}

/** A seat's budgets: its pod's first (the narrower), then its rig's. */
export function scopesOf(
  seat: { rig: string; pod: string },
  budgets: { rig?: BudgetSpec; pods: Record<string, BudgetSpec> },
): BudgetScope[] {
  const out: BudgetScope[] = [];
  const pod = budgets.pods[seat.pod];
  const podName = `${seat.pod}@${seat.rig}`;
  if (pod) out.push({ scope: 'pod', name: podName, key: `pod:${podName}`, limit: pod });
  if (budgets.rig) out.push({ scope: 'rig', name: seat.rig, key: `rig:${seat.rig}`, limit: budgets.rig });
  return out;
}

/** Reached: today's tokens at or past the token limit, or today's priced cost at or past the dollar one. */
export function reached(limit: BudgetSpec, spent: Spent): boolean {
  if (limit.tokens !== undefined && spent.tokens >= limit.tokens) return true;
  return limit.usd !== undefined && spent.usd !== undefined && spent.usd >= limit.usd;
}

/** One scope's state today: under, over (parks), or released for today by a decision. */
export function judge(
  s: BudgetScope,
  day: string,
  spent: Spent,
  decisions: { open?: number; release?: number },
): SeatBudget {
  const over = reached(s.limit, spent);
  const state = !over ? 'under' : decisions.release !== undefined ? 'released' : 'over';
  const decisionId = state === 'released' ? decisions.release : state === 'over' ? decisions.open : undefined;
  return {
    scope: s.scope,
    name: s.name,
    day,
    state,
    ...(s.limit.tokens !== undefined ? { tokens: { limit: s.limit.tokens, spent: spent.tokens } } : {}),
    ...(s.limit.usd !== undefined
      ? { usd: { limit: s.limit.usd, ...(spent.usd !== undefined ? { spent: spent.usd } : {}) } }
      : {}),
    ...(decisionId !== undefined ? { decisionId } : {}),
  };
}

/**
 * The budget that speaks for a seat now: one that parks it (its pod's before its rig's), else one
 * released for today, else its pod's (or rig's) as it stands. Undefined where none is declared.
 */
export function seatBudget(deps: BudgetDeps, seat: { rig: string; pod: string }): SeatBudget | undefined {
  const scopes = scopesOf(seat, deps.budgets(seat.rig));
  if (scopes.length === 0) return undefined;
  const now = deps.now();
  const day = deps.dayOf(now);
  const spent = deps.spent(seat.rig, deps.dayStart(now));
  const judged = scopes.map((s) =>
    judge(
      s,
      day,
      (s.scope === 'pod' ? spent.pods.get(s.name) : spent.rig) ?? { tokens: 0 },
      deps.decisions(s.key, day),
    ),
  );
  return judged.find((j) => j.state === 'over') ?? judged.find((j) => j.state === 'released') ?? judged[0];
}

/** The words a parked wake or send, and its decision, carry. */
export function budgetWhy(b: SeatBudget): string {
  const parts: string[] = [];
  if (b.tokens && b.tokens.spent >= b.tokens.limit) parts.push(`${b.tokens.spent} of ${b.tokens.limit} tokens`);
  if (b.usd?.spent !== undefined && b.usd.spent >= b.usd.limit) parts.push(`$${b.usd.spent} of $${b.usd.limit}`);
  return `budget reached: ${b.scope} ${b.name} spent ${parts.join(' and ')} on ${b.day}: raise it, or release for today`;
}

/** The machine's local day of a moment, as `YYYY-MM-DD`: what a person means by "today". */
export function localDay(at: number): string {
  const d = new Date(at);
  const two = (n: number) => String(n).padStart(2, '0');
  return `${d.getFullYear()}-${two(d.getMonth() + 1)}-${two(d.getDate())}`;
}

export function localDayStart(at: number): number {
  const d = new Date(at);
  return new Date(d.getFullYear(), d.getMonth(), d.getDate()).getTime();
}
