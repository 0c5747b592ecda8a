import type { ACTIVITY_ANSWERS, ACTIVITY_REQUESTS } from '../../../shared/contract/activity';
import { moveItem, addItem, listItems, showItem } from '../queue/service';
import { queueTick } from '../queue/waker';
import type { Handlers } from './types';

export const ACTIVITY_HANDLERS: Handlers<typeof ACTIVITY_REQUESTS, typeof ACTIVITY_ANSWERS> = {
  'queue.add': (e, p) => addItem(e.ports, p),
  'queue.list': (e, p) => listItems(e.ports, p),
  'queue.show': (e, p) => showItem(e.ports, p.id),
  'queue.claim': (e, p) => moveItem(e.ports, p.id, 'claim', p),
  'queue.handoff': (e, p) => moveItem(e.ports, p.id, 'handoff', p),
  'queue.done': (e, p) => moveItem(e.ports, p.id, 'done', p),
  'queue.block': (e, p) => moveItem(e.ports, p.id, 'block', p),
  'queue.wake': async (e, p) => {
    if (p.seat !== undefined) {
      const found = e.store.rigs.find(p.seat);
      if (!found.ok) return found;
      return { ok: true, wakes: await queueTick(e.ports, { seat: found.seat.seat }) };
    }
    return { ok: true, wakes: await queueTick(e.ports) };
  },
};
