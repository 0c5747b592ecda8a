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
    case 'seat.activity':
      return `now ${str(d.label) ?? str(d.activity) ?? '?'}${str(d.needsInput) ? ` (${str(d.needsInput)})` : ''}`;
    case 'seat.send':
      return `sent: ${str(d.preview) ?? `${str(d.chars) ?? '?'} characters`}`;
    case 'seat.send_held':
      return `send held: ${str(d.why) ?? str(d.reason) ?? ''}`;
    case 'seat.send_refused':
      return `send refused: ${str(d.code) ?? ''}`;
    case 'seat.stop':
      return 'stopped';
    case 'seat.kill':
      return 'session removed';
    case 'seat.kill_not_removed':
      return `session NOT removed${str(d.why) ? `: ${str(d.why)}` : ''}`;
    case 'seat.already_gone':
      return 'already gone';
    case 'restore.seat':
      return `restore: ${(str(d.outcome) ?? str(d.step) ?? 'a step').replace(/_/g, ' ')}`;
    case 'rig.up':
      return 'rig recorded';
    case 'rig.down':
      return 'rig taken down';
    case 'seat.restart':
      return restartText(d);
    case 'seat.fresh_with_reason':
      return `fresh ${str(d.step) ?? ''}: ${str(d.reason) ?? ''}`;
    case 'seat.fork':
      return `fork ${str(d.step) ?? ''} ${str(d.as) ?? str(d.to) ?? ''}`.trim();
    case 'seat.prompt_answered':
      return `prompt answered: ${str(d.choice) ?? '?'}${str(d.by) ? ` by ${str(d.by)}` : ''}`;
    case 'seat.prompt_answer_refused':
      return `prompt answer refused: ${str(d.code) ?? '?'}`;
    case 'decision.opened':
      return `decision opened: ${str(d.reason) ?? ''}`;
    case 'decision.answered':
      return `decision answered: ${str(d.choice) ?? '?'} (${str(d.reason) ?? ''})`;
    case 'queue.created':
      return 'work queued';
    case 'queue.wake':
      return 'woken for its queue';
    default:
      return e.kind.replace(/[._]/g, ' ');
  }
}
