import { createHash } from 'node:crypto';
import type { SeatActivity } from '../activity/decide';

/**
 * The wake's pure decisions: the digest that makes a wake exactly-once, the retry ladder, the
 * notice text, whether a seat may be woken now, and what one pass does with a wake row.
 */

/** Held wakes retry after these delays; the last rung repeats, so open items are never forgotten. */
export const WAKE_LADDER_MS = [5_000, 15_000, 60_000, 300_000] as const;
/** How often a wake parked at a usage limit looks again whether the limit has cleared. */
export const PARK_RECHECK_MS = 30_000;

export function ladderDelay(attempt: number): number {
  return WAKE_LADDER_MS[Math.min(Math.max(attempt, 1), WAKE_LADDER_MS.length) - 1]!;
}

/** Open items, by id and last change: unchanged items give the same digest, any change a new one. */
export function wakeDigest(items: readonly { id: number; updatedAt: number }[]): string {
  const key = [...items]
    .sort((a, b) => a.id - b.id)
    .map((i) => `${i.id}:${i.updatedAt}`)
    .join(',');
  return createHash('sha256').update(key).digest('hex').slice(0, 32);
}

/** One line, no control characters; the token is what a later pass looks for on the pane's screen. */
export function wakeNotice(seat: string, count: number, token: string): string {
  return `[rigdesk] ${count} queued item(s) for you: rigdesk queue list --seat ${seat} (wake ${token})`;
}

export type WakeGate = { may: true } | { may: false; park: boolean; why: string };

/**
 * Whether a wake may type now. Stricter than a send's own holds only in one way: a usage limit
 * parks the wake (no ladder, no events per tick) until the limit clears.
 */
export function wakeGate(a: SeatActivity): WakeGate {
  if (a.session !== 'present') return { may: false, park: false, why: `session:${a.session}` };
  if (a.needsInput === 'usage_limit') return { may: false, park: true, why: 'needs_input:usage_limit' };
  if (a.needsInput !== 'none') return { may: false, park: false, why: `needs_input:${a.needsInput}` };
  if (a.draft) return { may: false, park: false, why: 'draft' };
  if (a.activity !== 'idle') return { may: false, park: false, why: a.activity };
  return { may: true };
}

export interface WakeRowState {
  state: 'pending' | 'sent' | 'parked' | 'superseded';
  nextAt: number;
  lastResult: string | null;
  holder: { pid: number; start: string | null } | null;
}

export type WakeStep =
  | { kind: 'skip'; why: 'already_woken' | 'not_due' | 'in_flight' }
  /** Observe the seat, then type, hold or park. `checkScreen` first when an earlier try may have typed. */
  | { kind: 'attempt'; checkScreen: boolean };

/**
 * What one pass does for a seat's current (occupant, digest) wake row. A row whose last attempt
 * was cut short (its holder died, or a send failed after it may have pasted) may already be on
 * the screen: the pass looks for its token before typing again, so a crash never doubles a wake.
 */
export function planWake(row: WakeRowState | undefined, now: number, holderAlive: boolean): WakeStep {
  if (!row) return { kind: 'attempt', checkScreen: false };
  if (row.state === 'sent') return { kind: 'skip', why: 'already_woken' };
  // A superseded row comes back when the open items return to exactly that set (an item added and
  // closed again): it was never delivered, so it is pending again.
  if (row.holder && holderAlive) return { kind: 'skip', why: 'in_flight' };
  if (now < row.nextAt) return { kind: 'skip', why: 'not_due' };
  const uncertain =
    row.holder !== null || row.lastResult === 'typing' || (row.lastResult?.startsWith('failed:') ?? false);
  return { kind: 'attempt', checkScreen: row.state !== 'parked' && uncertain };
}
