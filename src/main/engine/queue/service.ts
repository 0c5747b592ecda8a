import type { AnswerOf, QueueItem, QueueMove, RequestOf } from '../../../shared/contract';
import { fail, type Failure, type Result } from '../../../shared/errors';
import { observeSeats, type FreshLookPorts } from '../activity/observe';
import type { Ports } from '../ports';
import type { SeatRow } from '../store';
import { checkMove } from './moves';

/** What a move answers (claim, handoff, done and block answer alike). */
type Moved = AnswerOf<'queue.claim'>;

/**
 * Whether a seat has a live writer now: its recorded session is there in tmux and its program
 * (the agent, or a shell seat's command) still runs. Read from a fresh roster. A server that cannot
 * be read counts as no proven writer (fail closed): the opt-in still lets the person queue.
 */
async function writerOf(
  ports: FreshLookPorts,
  seat: SeatRow,
): Promise<{ live: true } | { live: false; why: string; session: string }> {
  if (!ports.store.sessions.live(seat.seat)) return { live: false, why: 'the seat is not running', session: 'absent' };
  const roster = await ports.roster();
  const o = (await observeSeats(ports, roster, [seat])).get(seat.seat)!;
  switch (o.activity.session) {
    case 'present':
      return { live: true };
    case 'exited':
      return { live: false, why: 'its agent has exited; only its shell is left', session: 'exited' };
    case 'detached':
      return { live: false, why: 'its tmux server cannot be read, so no writer is proven', session: 'detached' };
    default:
      return { live: false, why: 'its session is gone', session: 'absent' };
  }
}

function noWriter(seat: string, why: string, session: string, retry: string): Failure {
  return fail(
    'QUEUE_NO_WRITER',
    `${seat} has no live writer (${why}): nobody would read this item until the seat runs again; nothing was queued`,
    {
      hint: `To queue it for the seat's next run on purpose, add --for-next-resume: ${retry}`,
      evidence: { seat, session },
    },
  );
}

export async function addItem(
  ports: FreshLookPorts,
  p: RequestOf<'queue.add'>,
): Promise<Result<AnswerOf<'queue.add'>>> {
  const found = ports.store.rigs.find(p.seat);
  if (!found.ok) return found;
  const { seat } = found;
  const w = await writerOf(ports, seat);
  if (!w.live && !p.forNextResume)
    return noWriter(seat.seat, w.why, w.session, `rigdesk queue add ${seat.seat} --for-next-resume <text>`);
  const item = ports.store.queue.create(seat.seat, p.text, { by: p.by, forNextResume: p.forNextResume && !w.live });
  return { ok: true, item, writer: w.live ? 'live' : 'none' };
}

function findItem(ports: Pick<Ports, 'store'>, id: number): Result<{ item: QueueItem }> {
  const item = ports.store.queue.get(id);
  if (!item)
    return fail('QUEUE_ITEM_NOT_FOUND', `no queue item ${id}`, {
      hint: 'rigdesk queue list --all lists every item.',
      evidence: { id },
    });
  return { ok: true, item };
}

export async function moveItem(
  ports: FreshLookPorts,
  id: number,
  move: QueueMove,
  p: { by?: string; note?: string; seat?: string; forNextResume?: boolean },
): Promise<Result<Moved>> {
  const found = findItem(ports, id);
  if (!found.ok) return found;
  const { item } = found;
  let toSeat: string | undefined;
  if (move === 'handoff') {
    const target = ports.store.rigs.find(p.seat);
    if (!target.ok) return target;
    toSeat = target.seat.seat;
    if (toSeat === item.seat) return illegal(item, move, `it is already ${toSeat}'s`);
  }
  const check = checkMove(move, item.state, p.note);
  if (!check.ok) return illegal(item, move, check.why, check.allowedFrom);
  if (move === 'handoff') {
    const w = await writerOf(ports, ports.store.rigs.seat(toSeat!)!);
    if (!w.live && !p.forNextResume)
      return noWriter(toSeat!, w.why, w.session, `rigdesk queue handoff ${id} ${toSeat} --for-next-resume`);
  }
  const moved = ports.store.queue.move(item, move, check.to, { by: p.by, note: p.note, toSeat });
  if (!moved) {
    // Another writer moved it between our read and our write: report what it is now.
    const now = ports.store.queue.get(id);
    return illegal(
      now ?? item,
      move,
      `it changed while this ${move} was being applied (now ${now?.state ?? 'gone'}${now && now.seat !== item.seat ? ` at ${now.seat}` : ''})`,
    );
  }
  return { ok: true, item: moved, from: item.state, fromSeat: item.seat };
}

function illegal(item: QueueItem, move: QueueMove, why: string, allowedFrom?: readonly string[]): Failure {
  const verb = { claim: 'claim', handoff: 'hand off', done: 'close', block: 'block' }[move];
  return fail('QUEUE_ILLEGAL_MOVE', `cannot ${verb} item ${item.id} (${item.state}, ${item.seat}): ${why}`, {
    hint: `rigdesk queue show ${item.id} shows its history.`,
    evidence: { id: item.id, state: item.state, seat: item.seat, move, ...(allowedFrom ? { allowedFrom } : {}) },
  });
}

export async function listItems(
  ports: Pick<Ports, 'store'>,
  p: RequestOf<'queue.list'>,
): Promise<Result<AnswerOf<'queue.list'>>> {
  if (p.seat !== undefined) {
    const found = ports.store.rigs.find(p.seat);
    // A seat removed from its rig can still own items: list them by name rather than refuse.
    if (!found.ok && ports.store.queue.list({ seat: p.seat, all: true }).length === 0) return found;
  }
  return { ok: true, items: ports.store.queue.list(p) };
}

export async function showItem(ports: Pick<Ports, 'store'>, id: number): Promise<Result<AnswerOf<'queue.show'>>> {
  const found = findItem(ports, id);
  if (!found.ok) return found;
  return { ok: true, item: found.item, transitions: ports.store.queue.transitions(id) };
}
