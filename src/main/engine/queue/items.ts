import type { Store } from '../store';
import type { QueueMove, QueueState } from './moves';

export type { QueueItem } from '../../../shared/contract/activity';
import type { QueueItem } from '../../../shared/contract/activity';

export interface QueueTransition {
  id: number;
  item: number;
  move: QueueMove | 'create' | null;
  from: QueueState | null;
  to: QueueState;
  fromSeat: string | null;
  toSeat: string | null;
  actor: string | null;
  note: string | null;
  at: number;
}

interface RawItem {
  id: number;
  seat: string;
  body: string;
  state: QueueState;
  created_by: string | null;
  claimed_by: string | null;
  note: string | null;
  for_next_resume: number;
  created_at: number;
  updated_at: number;
}
interface RawMove {
  id: number;
  item: number;
  move: QueueTransition['move'];
  from_state: QueueState | null;
  to_state: QueueState;
  from_seat: string | null;
  to_seat: string | null;
  actor: string | null;
  note: string | null;
  at: number;
}

const toItem = (r: RawItem): QueueItem => ({
  id: r.id,
  seat: r.seat,
  body: r.body,
  state: r.state,
  createdBy: r.created_by,
  claimedBy: r.claimed_by,
  note: r.note,
  forNextResume: r.for_next_resume === 1,
  createdAt: r.created_at,
  updatedAt: r.updated_at,
});
const toMove = (r: RawMove): QueueTransition => ({
  id: r.id,
  item: r.item,
  move: r.move,
  from: r.from_state,
  to: r.to_state,
  fromSeat: r.from_seat,
  toSeat: r.to_seat,
  actor: r.actor,
  note: r.note,
  at: r.at,
});

const rigOf = (seat: string) => seat.slice(seat.lastIndexOf('@') + 1) || null;

/**
 * Queue items and their append-only transitions. Every write is one transaction holding the item
 * change, its transition row and its event (docs/architecture.md invariant 8): a crash leaves all or none.
 */
export class QueueRepo {
  constructor(
    private readonly store: Store,
    private readonly now: () => number,
  ) {}

  get(id: number): QueueItem | undefined {
    const r = this.store.db.prepare('SELECT * FROM queue_items WHERE id = ?').get(id) as RawItem | undefined;
    return r ? toItem(r) : undefined;
  }

  list(filter: { seat?: string; all?: boolean; states?: readonly QueueState[] } = {}): QueueItem[] {
    const where: string[] = [];
    const args: unknown[] = [];
    if (filter.seat) where.push('seat = ?'), args.push(filter.seat);
    const states = filter.states ?? (filter.all ? undefined : ['open', 'claimed', 'blocked']);
    if (states) where.push(`state IN (${states.map(() => '?').join(', ')})`), args.push(...states);
    const sql = `SELECT * FROM queue_items ${where.length ? 'WHERE ' + where.join(' AND ') : ''} ORDER BY id`;
    return (this.store.db.prepare(sql).all(...args) as RawItem[]).map(toItem);
  }

  transitions(item: number): QueueTransition[] {
    return (
      this.store.db.prepare('SELECT * FROM queue_transitions WHERE item = ? ORDER BY id').all(item) as RawMove[]
    ).map(toMove);
  }

  create(seat: string, body: string, opts: { by?: string; forNextResume?: boolean }): QueueItem {
    const at = this.now();
    const tx = this.store.db.transaction(() => {
      const id = Number(
        this.store.db
          .prepare(`INSERT INTO queue_items (seat, body, state, created_by, for_next_resume, created_at, updated_at)
        VALUES (?, ?, 'open', ?, ?, ?, ?)`)
          .run(seat, body, opts.by ?? null, opts.forNextResume ? 1 : 0, at, at).lastInsertRowid,
      );
      this.store.db
        .prepare(`INSERT INTO queue_transitions (item, move, from_state, to_state, from_seat, to_seat, actor, note, at)
        VALUES (?, 'create', NULL, 'open', NULL, ?, ?, NULL, ?)`)
        .run(id, seat, opts.by ?? null, at);
      this.store.events.append(
        'queue.created',
        { rig: rigOf(seat), seat },
        { id, preview: body.slice(0, 120), forNextResume: Boolean(opts.forNextResume), by: opts.by ?? null },
      );
      return id;
    });
    return this.get(tx.immediate())!;
  }

  /**
   * Applies a checked move. `expect` is the state the caller checked: if another writer moved the
   * item in between, nothing changes and undefined comes back (the caller re-reads and refuses).
   */
  move(
    item: QueueItem,
    move: QueueMove,
    to: QueueState,
    opts: { by?: string; note?: string; toSeat?: string },
  ): QueueItem | undefined {
    const tx = this.store.db.transaction(() => {
      const cur = this.get(item.id);
      if (!cur || cur.state !== item.state || cur.seat !== item.seat) return undefined;
      // updated_at strictly increases on every move, so the wake digest (ids + updated_at) changes
      // with every change, even two within one millisecond.
      const at = Math.max(this.now(), cur.updatedAt + 1);
      const seat = opts.toSeat ?? cur.seat;
      const claimedBy = move === 'claim' ? (opts.by ?? null) : move === 'handoff' ? null : cur.claimedBy;
      // The item keeps its latest note (the closing note, the blocker); each transition keeps its own.
      const note = opts.note ?? cur.note;
      this.store.db
        .prepare('UPDATE queue_items SET seat = ?, state = ?, claimed_by = ?, note = ?, updated_at = ? WHERE id = ?')
        .run(seat, to, claimedBy, note, at, cur.id);
      this.store.db
        .prepare(`INSERT INTO queue_transitions (item, move, from_state, to_state, from_seat, to_seat, actor, note, at)
        VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)`)
        .run(cur.id, move, cur.state, to, cur.seat, seat, opts.by ?? null, opts.note ?? null, at);
      this.store.events.append(
        'queue.moved',
        { rig: rigOf(seat), seat },
        {
          id: cur.id,
          move,
          from: cur.state,
          to,
          fromSeat: cur.seat,
          toSeat: seat,
          by: opts.by ?? null,
          note: opts.note ?? null,
        },
      );
      return cur.id;
    });
    const id = tx.immediate();
    return id === undefined ? undefined : this.get(id);
  }
}
