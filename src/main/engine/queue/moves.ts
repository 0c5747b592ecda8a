/**
 * The queue's state machine, as a pure table: which move may leave which state, and where it lands.
 * `done` is final: a closed item is history, and reopening would hide the closing note's meaning.
 */

import type { QueueMove, QueueState } from '../../../shared/contract/activity';

// The states and moves are the contract's (an item's answer names them); the rules are here.
export { QUEUE_MOVES, QUEUE_STATES, type QueueMove, type QueueState } from '../../../shared/contract/activity';

const TABLE: Record<QueueMove, { from: readonly QueueState[]; to: QueueState; needsNote: boolean }> = {
  // Claiming a blocked item is how it is taken up again once the blocker is gone.
  claim: { from: ['open', 'blocked'], to: 'claimed', needsNote: false },
  // A handoff gives the item to another seat as open work: its new owner claims it for itself.
  handoff: { from: ['open', 'claimed', 'blocked'], to: 'open', needsNote: false },
  done: { from: ['open', 'claimed', 'blocked'], to: 'done', needsNote: true },
  block: { from: ['open', 'claimed'], to: 'blocked', needsNote: true },
};

export type MoveCheck = { ok: true; to: QueueState } | { ok: false; why: string; allowedFrom: readonly QueueState[] };

export function checkMove(move: QueueMove, from: QueueState, note: string | undefined): MoveCheck {
  const rule = TABLE[move];
  if (!rule.from.includes(from)) {
    const why =
      from === 'done' ? 'it is done, and done is final' : `${move} is allowed only from ${rule.from.join(' or ')}`;
    return { ok: false, why, allowedFrom: rule.from };
  }
  if (rule.needsNote && !note?.trim())
    return { ok: false, why: `${move} needs a note saying why`, allowedFrom: rule.from };
  return { ok: true, to: rule.to };
}
