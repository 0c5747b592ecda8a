import type { PsRow } from '../../../shared/contract';
import { STATE_LABEL, type StateWord, stateWord } from '../state/seat-state';
import { type Decision, openDecisionFor } from '../state/store';

/** The states a far-out pod names by count, in this order: the ones that want the person. */
const CALLING: readonly StateWord[] = ['needs_input', 'exited'];

/**
 * How many of `seats` want the person, by state, zero states left out ("2 needs you · 1 exited"):
 * what a pod's far label says. A string, so a label subscribed to it draws again only when a count
 * changes.
 */
export function callingSummary(
  seats: readonly string[],
  rows: Readonly<Record<string, PsRow | undefined>>,
  decisions: readonly Decision[],
): string {
  const n = new Map<StateWord, number>();
  for (const seat of seats) {
    const w = stateWord(rows[seat], !!openDecisionFor(decisions, seat));
    n.set(w, (n.get(w) ?? 0) + 1);
  }
  return CALLING.filter((w) => n.has(w))
    .map((w) => `${n.get(w)} ${STATE_LABEL[w]}`)
    .join(' · ');
}
