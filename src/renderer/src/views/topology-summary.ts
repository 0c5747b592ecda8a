import type { PsRow } from '../../../shared/contract';
import { STATE_LABEL, STATE_WORDS, type StateWord, stateWord } from '../state/seat-state';
import { type Decision, openDecisionFor } from '../state/store';

/** The states a far-out pod names by count: the ones that want the person. */
export const CALLING: readonly StateWord[] = ['needs_input', 'exited'];

/**
 * Seats counted by state, in the strip's order, zero states and those not in `only` left out ("2
 * needs you · 1 exited"): what a pod's far label says. A string, so a label subscribed to it draws
 * again only when a count changes.
 */
export function stateSummary(
  seats: readonly string[],
  rows: Readonly<Record<string, PsRow | undefined>>,
  decisions: readonly Decision[],
  only: readonly StateWord[] = STATE_WORDS,
): string {
  const n = Object.fromEntries(STATE_WORDS.map((w) => [w, 0])) as Record<StateWord, number>;
  for (const seat of seats) n[stateWord(rows[seat], !!openDecisionFor(decisions, seat))]++;
  return STATE_WORDS.filter((w) => n[w] > 0 && only.includes(w))
    .map((w) => `${n[w]} ${STATE_LABEL[w]}`)
    .join(' · ');
}
