/**
 * Every event kind, in one leaf module that imports nothing: the store's log, restore and prompts
 * take them from here. Kinds are stable strings; consumers match on them.
 */

export const RESTORE_EVENT_KINDS = [
  'snapshot.taken',
  'restore.started',
  'restore.planned',
  'restore.seat',
  'restore.finished',
  'restore.rolled_back',
  'decision.opened',
  'decision.answered',
  'seat.restart',
  'seat.fresh_with_reason',
  'seat.fork',
  'reconcile.ended_gone',
  'reconcile.run_interrupted',
  'reconcile.unexplained',
  'reconcile.done',
] as const;
export type RestoreEventKind = (typeof RESTORE_EVENT_KINDS)[number];

/** Answering a permission prompt. */
export type PromptEventKind = 'seat.prompt_answered' | 'seat.prompt_answer_refused';

/** The work loop: a seat's worktree, a review sent to it, a merge through the gate, a removal. */
export type ChangesEventKind = 'worktree.created' | 'worktree.removed' | 'review.sent' | 'merge.done' | 'merge.refused';

/** Every kind the event log takes. */
export type EventKind =
  | RestoreEventKind
  | PromptEventKind
  | ChangesEventKind
  | 'rig.up'
  | 'rig.down'
  | 'seat.launch'
  | 'host.added'
  | 'host.reachable'
  | 'host.unreachable'
  | 'seat.launch_refused'
  | 'seat.identity_bound'
  | 'seat.conversation_bound'
  | 'seat.stop'
  | 'seat.kill'
  | 'seat.kill_not_removed'
  | 'seat.already_gone'
  | 'seat.send'
  | 'seat.send_refused'
  | 'seat.send_held'
  | 'seat.activity'
  | 'seat.send_override'
  | 'queue.created'
  | 'queue.moved'
  | 'queue.wake'
  | 'queue.wake_held'
  | 'budget.reached'
  | 'budget.released'
  | 'fence.reserved'
  | 'fence.helper_invoked'
  | 'fence.created'
  | 'fence.released'
  | 'fence.abandoned'
  | 'fence.census'
  | 'device.paired'
  | 'device.pairing_closed'
  | 'device.revoked';
