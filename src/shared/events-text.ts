import type { EventRow } from './contract';

const str = (v: unknown) => (typeof v === 'string' || typeof v === 'number' ? String(v) : undefined);
/** A field of a nested object in an event's data, when it is there. */
const at = (v: unknown, key: string): unknown =>
  typeof v === 'object' && v !== null && key in v ? Object.getOwnPropertyDescriptor(v, key)?.value : undefined;

function restartText(d: Record<string, unknown>): string {
  const conv = str(d.conversationId);
  if (d.step === 'begin') {
    const old = str(at(d.stop, 'pid'));
    return `restart: stopping pid ${old ?? '?'}${conv ? `, keeping conversation ${conv}` : ''}`;
  }
  if (d.step === 'end')
    return `restarted (${str(d.outcome) ?? '?'}): pid ${str(d.panePid) ?? '?'}${conv ? `, conversation ${conv}` : ''}`;
  return `restart ${str(d.step) ?? ''}`.trim();
}

/**
 * One line per event, in a person's words (the kind itself when unknown): the window's timelines
 * and the CLI's progress lines read the log the same way.
 */
export function describeEvent(e: EventRow): string {
  const d = e.data;
  const pid = str(d.pid);
  const conv = str(d.conversationId);
  switch (e.kind) {
    case 'seat.launch':
      return `launched (${str(d.mode) ?? 'new'})${str(d.paneId) ? ` in pane ${str(d.paneId)}` : ''}${conv ? `, conversation ${conv}` : ''}`;
    case 'seat.launch_refused':
      return `launch refused: ${str(d.code) ?? ''} ${str(d.message) ?? ''}`.trim();
    case 'seat.identity_bound':
      return `bound to pane ${str(d.paneId) ?? '?'}${pid ? `, pid ${pid}` : ''}`;
    case 'seat.conversation_bound':
      // The engine records the change as from/to.
      return `conversation ${str(d.to) ?? conv ?? '?'} bound`;
    case 'seat.send':
      return `sent: ${str(d.preview) ?? `${str(d.chars) ?? '?'} characters`}`;
    case 'seat.send_held':
      return `send held: ${str(d.why) ?? str(d.reason) ?? ''}`;
    case 'seat.send_refused':
      return `send refused: ${str(d.code) ?? ''}`;
    case 'seat.stop':
      return 'stopped';
    case 'seat.kill_not_removed':
      return `session NOT removed${str(d.why) ? `: ${str(d.why)}` : ''}`;
    case 'seat.already_gone':
      return 'already gone';
    case 'seat.restart':
      return restartText(d);
    case 'seat.fresh_with_reason':
      return `fresh ${str(d.step) ?? ''}: ${str(d.reason) ?? ''}`;
    case 'seat.fork':
      return `fork ${str(d.step) ?? ''} ${str(d.as) ?? str(d.to) ?? ''}`.trim();
    case 'worktree.created':
      return `worktree made: ${str(d.path) ?? '?'} on ${str(d.branch) ?? '?'} from ${str(d.base) ?? '?'}`;
    case 'worktree.removed':
      return `worktree removed: ${str(d.path) ?? '?'}${d.branchDeleted ? ` and branch ${str(d.branch) ?? ''}` : ''}`;
    case 'review.sent':
      return `review sent: ${str(d.comments) ?? '?'} comment(s)${str(d.by) ? ` by ${str(d.by)}` : ''}`;
    case 'merge.done':
      return `merged ${str(d.branch) ?? '?'} into ${str(d.into) ?? '?'}${d.upToDate ? ' (nothing to merge)' : `: ${str(d.commit)?.slice(0, 12) ?? ''}`}`;
    case 'merge.refused':
      return `merge refused: ${str(d.code) ?? ''} ${str(d.message) ?? ''}`.trim();
    case 'seat.prompt_answered':
      return `prompt answered: ${str(d.choice) ?? '?'}${str(d.by) ? ` by ${str(d.by)}` : ''}`;
    case 'seat.prompt_answer_refused':
      return `prompt answer refused: ${str(d.code) ?? '?'}`;
    case 'decision.opened':
      return `decision opened: ${str(d.reason) ?? ''}`;
    case 'decision.answered':
      return `decision answered: ${str(d.choice) ?? '?'} (${str(d.reason) ?? ''})`;
    case 'queue.wake':
      return 'woken for its queue';
    default:
      return rigOrQueueText(e);
  }
}

const memberOf = (seat: string) => seat.slice(0, seat.lastIndexOf('@'));

/** The rig's own steps, the queue's and a seat's activity; any other kind as its words. */
function rigOrQueueText(e: EventRow): string {
  const d = e.data;
  switch (e.kind) {
    case 'rig.up':
      return 'rig brought up';
    case 'rig.down':
      return 'rig taken down';
    case 'snapshot.taken':
      return `snapshot ${str(d.snapshot) ?? ''} taken (${str(d.reason) ?? '?'})`;
    case 'restore.planned':
      return `restore planned on snapshot ${str(d.snapshot) ?? '?'}`;
    case 'restore.seat':
      return `restore: ${(str(d.outcome) ?? str(d.step) ?? '?').replace(/_/g, ' ')}${str(d.why) ? ` (${str(d.why)})` : ''}`;
    case 'restore.finished':
      return `restore finished: ${(str(d.outcome) ?? '?').replace(/_/g, ' ')}`;
    case 'queue.created':
      return `item #${str(d.id) ?? '?'} queued: ${str(d.preview) ?? ''}`;
    case 'queue.moved':
      return `item #${str(d.id) ?? '?'} ${str(d.move) ?? 'moved'}${d.fromSeat !== d.toSeat ? ` from ${memberOf(String(d.fromSeat))}` : ''}`;
    case 'seat.activity': {
      const why = str(d.needsInput);
      return `now ${str(d.label) ?? str(d.activity) ?? '?'}${why && why !== 'none' ? ` (${why.replace(/_/g, ' ')})` : ''}`;
    }
    case 'seat.kill':
      return 'session ended (exact cleanup)';
    default:
      return e.kind.replace(/[._]/g, ' ');
  }
}
