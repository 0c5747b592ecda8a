import type { PsRow } from '../../../shared/contract';
import { openChanges } from './changes/open';
import { askFork, askFresh, askQueue, askSend, askStop, copyAttach, launch, restart } from '../state/actions';

export interface SeatAction {
  id: string;
  label: string;
  run: () => void;
  danger?: boolean;
}

/** What can be done to a seat now: a running seat is sent to, restarted, forked; a stopped one launched. */
export function seatActions(seat: string, row: PsRow | undefined): SeatAction[] {
  const running = row?.state === 'running';
  // A plain program (a shell seat) keeps no conversation to fork; an unknown runtime may.
  const agent = row?.conversations !== false;
  const list: SeatAction[] = [];
  if (running) {
    list.push({ id: 'send', label: 'Send…', run: () => askSend(seat) });
    list.push({ id: 'queue', label: 'Queue work…', run: () => askQueue(seat) });
    list.push({ id: 'restart', label: 'Restart (keep conversation)', run: () => void restart(seat) });
    list.push({ id: 'fresh', label: 'Fresh…', run: () => askFresh(seat) });
    if (agent) list.push({ id: 'fork', label: 'Fork as…', run: () => askFork(seat) });
    list.push({ id: 'attach', label: 'Copy attach command', run: () => void copyAttach(seat) });
    list.push({ id: 'stop', label: 'Stop…', run: () => askStop(seat), danger: true });
  } else {
    list.push({ id: 'launch', label: 'Launch', run: () => void launch(seat) });
    list.push({ id: 'launch-fresh', label: 'Launch fresh', run: () => void launch(seat, true) });
    list.push({ id: 'queue', label: 'Queue work…', run: () => askQueue(seat) });
    if (agent && row?.conversationId) list.push({ id: 'fork', label: 'Fork as…', run: () => askFork(seat) });
  }
  list.push({ id: 'changes', label: 'Changes', run: () => openChanges(seat) });
  return list;
}
