import type { HandoffItem } from '../../../shared/contract';
import type { Ports } from '../ports';

interface RawHandoff {
  id: number;
  seat: string;
  state: 'open' | 'claimed';
  body: string;
  from_seat: string;
  at: number;
}

/**
 * Queue items whose latest hand moved them from one seat to another and that are not closed yet:
 * the window draws them on the edge between the two seats. Read from the store only (the open
 * items of the rig's seats, on queue_items_by_seat; each one's last handoff on
 * queue_transitions_by_item).
 */
export function openHandoffs(ports: Pick<Ports, 'store'>, rig?: string): HandoffItem[] {
  const seats = ports.store.rigs.seats(rig);
  if (seats.length === 0) return [];
  const rigOf = new Map(seats.map((s) => [s.seat, s.rig]));
  const rows = ports.store.db
    .prepare<string[], RawHandoff>(
      `SELECT i.id, i.seat, i.state, i.body, t.from_seat, t.at
         FROM queue_items i
         JOIN queue_transitions t ON t.id = (
           SELECT MAX(id) FROM queue_transitions WHERE item = i.id AND move = 'handoff')
        WHERE i.seat IN (${seats.map(() => '?').join(', ')})
          AND i.state IN ('open', 'claimed')
          AND t.from_seat IS NOT NULL AND t.from_seat <> i.seat
        ORDER BY i.id`,
    )
    .all(...seats.map((s) => s.seat));
  return rows.flatMap((r) => {
    const at = rigOf.get(r.seat);
    if (!at || rigOf.get(r.from_seat) !== at) return [];
    const title = (r.body.split('\n').find((l) => l.trim()) ?? '').trim().slice(0, 200);
    return [{ id: r.id, rig: at, from: r.from_seat, to: r.seat, state: r.state, title, at: r.at }];
  });
}
