import { randomBytes } from 'node:crypto';
import type { QueueItem, QueueMove, QueueState, QueueTransition } from '../../../shared/contract/activity';
import type { Db } from './db';
import type { EventLog } from './events';

/**
 * The queue's tables: queue_items, their append-only queue_transitions, and queue_wakes. Only SQL
 * and row shapes live here; what may move where and when to wake are decided in queue/.
 */

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
 * Queue items and their transitions. Every write is one transaction holding the item change, its
 * transition row and its event (docs/architecture.md invariant 8): a crash leaves all or none.
 */
export class QueueRepo {
  readonly wakes: WakeRepo;
  constructor(
    private readonly db: Db,
    private readonly now: () => number,
    private readonly events: EventLog,
  ) {
    this.wakes = new WakeRepo(db, now);
  }

  get(id: number): QueueItem | undefined {
    const r = this.db.prepare('SELECT * FROM queue_items WHERE id = ?').get(id) as RawItem | undefined;
    return r ? toItem(r) : undefined;
  }

  list(filter: { seat?: string; all?: boolean; states?: readonly QueueState[] } = {}): QueueItem[] {
    const where: string[] = [];
    const args: unknown[] = [];
    if (filter.seat) where.push('seat = ?'), args.push(filter.seat);
    const states = filter.states ?? (filter.all ? undefined : ['open', 'claimed', 'blocked']);
    if (states) where.push(`state IN (${states.map(() => '?').join(', ')})`), args.push(...states);
    const sql = `SELECT * FROM queue_items ${where.length ? `WHERE ${where.join(' AND ')}` : ''} ORDER BY id`;
    return (this.db.prepare(sql).all(...args) as RawItem[]).map(toItem);
  }

  transitions(item: number): QueueTransition[] {
    return (this.db.prepare('SELECT * FROM queue_transitions WHERE item = ? ORDER BY id').all(item) as RawMove[]).map(
      toMove,
    );
  }

  create(seat: string, body: string, opts: { by?: string; forNextResume?: boolean }): QueueItem {
    const at = this.now();
    const tx = this.db.transaction(() => {
      const id = Number(
        this.db
          .prepare(`INSERT INTO queue_items (seat, body, state, created_by, for_next_resume, created_at, updated_at)
        VALUES (?, ?, 'open', ?, ?, ?, ?)`)
          .run(seat, body, opts.by ?? null, opts.forNextResume ? 1 : 0, at, at).lastInsertRowid,
      );
      this.db
        .prepare(`INSERT INTO queue_transitions (item, move, from_state, to_state, from_seat, to_seat, actor, note, at)
        VALUES (?, 'create', NULL, 'open', NULL, ?, ?, NULL, ?)`)
        .run(id, seat, opts.by ?? null, at);
      this.events.append(
        'queue.created',
        { rig: rigOf(seat), seat },
        { id, preview: body.slice(0, 120), forNextResume: Boolean(opts.forNextResume), by: opts.by ?? null },
      );
      return id;
    });
    return this.get(tx.immediate())!;
  }

  /**
   * Applies a checked move. `item` is what the caller checked: if another writer moved it in
   * between, nothing changes and undefined comes back (the caller re-reads and refuses).
   */
  move(
    item: QueueItem,
    move: QueueMove,
    to: QueueState,
    opts: { by?: string; note?: string; toSeat?: string },
  ): QueueItem | undefined {
    const tx = this.db.transaction(() => {
      const cur = this.get(item.id);
      if (!cur || cur.state !== item.state || cur.seat !== item.seat) return undefined;
      // updated_at strictly increases on every move, so the wake digest (ids + updated_at) changes
      // with every change, even two within one millisecond.
      const at = Math.max(this.now(), cur.updatedAt + 1);
      const seat = opts.toSeat ?? cur.seat;
      const claimedBy = move === 'claim' ? (opts.by ?? null) : move === 'handoff' ? null : cur.claimedBy;
      // The item keeps its latest note (the closing note, the blocker); each transition keeps its own.
      const note = opts.note ?? cur.note;
      this.db
        .prepare('UPDATE queue_items SET seat = ?, state = ?, claimed_by = ?, note = ?, updated_at = ? WHERE id = ?')
        .run(seat, to, claimedBy, note, at, cur.id);
      this.db
        .prepare(`INSERT INTO queue_transitions (item, move, from_state, to_state, from_seat, to_seat, actor, note, at)
        VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)`)
        .run(cur.id, move, cur.state, to, cur.seat, seat, opts.by ?? null, opts.note ?? null, at);
      this.events.append(
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

/** Who is typing a wake: a process by pid and start time (null where it could not be read). */
export interface Holder {
  pid: number;
  start: string | null;
}

export interface WakeRow {
  id: number;
  seat: string;
  sessionRow: number;
  digest: string;
  token: string;
  state: 'pending' | 'sent' | 'parked' | 'superseded';
  attempts: number;
  nextAt: number;
  lastResult: string | null;
  holder: Holder | null;
  items: number[];
  createdAt: number;
  updatedAt: number;
}

interface RawWake {
  id: number;
  seat: string;
  session_row: number;
  digest: string;
  token: string;
  state: WakeRow['state'];
  attempts: number;
  next_at: number;
  last_result: string | null;
  created_at: number;
  updated_at: number;
  holder_pid: number | null;
  holder_start: string | null;
  items_json: string;
}

const toWake = (r: RawWake): WakeRow => ({
  id: r.id,
  seat: r.seat,
  sessionRow: r.session_row,
  digest: r.digest,
  token: r.token,
  state: r.state,
  attempts: r.attempts,
  nextAt: r.next_at,
  lastResult: r.last_result,
  holder: r.holder_pid === null ? null : { pid: r.holder_pid, start: r.holder_start },
  items: JSON.parse(r.items_json) as number[],
  createdAt: r.created_at,
  updatedAt: r.updated_at,
});

/**
 * Rows of queue_wakes. UNIQUE(seat, session_row, digest) is the exactly-once: two wakers (the
 * engine's timer and a `rigdesk queue wake`) can both try to insert a wake, and only one row is
 * made; taking a row to type it is a compare-and-set on its holder, so only one of them types.
 */
export class WakeRepo {
  constructor(
    private readonly db: Db,
    private readonly now: () => number,
  ) {}

  find(seat: string, sessionRow: number, digest: string): WakeRow | undefined {
    const r = this.db
      .prepare('SELECT * FROM queue_wakes WHERE seat = ? AND session_row = ? AND digest = ?')
      .get(seat, sessionRow, digest) as RawWake | undefined;
    return r ? toWake(r) : undefined;
  }

  get(id: number): WakeRow | undefined {
    const r = this.db.prepare('SELECT * FROM queue_wakes WHERE id = ?').get(id) as RawWake | undefined;
    return r ? toWake(r) : undefined;
  }

  /** Unfinished rows of a seat (pending or parked), for superseding. */
  unfinished(seat: string): WakeRow[] {
    const sql = "SELECT * FROM queue_wakes WHERE seat = ? AND state IN ('pending', 'parked') ORDER BY id";
    return (this.db.prepare(sql).all(seat) as RawWake[]).map(toWake);
  }

  /** Seats with an unfinished wake (pending or parked), whether or not they still have open items. */
  seatsWithUnfinished(): string[] {
    const sql = "SELECT DISTINCT seat FROM queue_wakes WHERE state IN ('pending', 'parked')";
    return (this.db.prepare(sql).all() as { seat: string }[]).map((r) => r.seat);
  }

  /**
   * Inserts the wake row, or returns undefined when another waker made it first. The token is the
   * row id plus a nonce, so no other text on a screen matches it by chance.
   */
  insert(
    k: { seat: string; sessionRow: number; digest: string; items: number[] },
    s: { state: 'pending' | 'parked'; attempts: number; nextAt: number; lastResult: string; holder?: Holder },
  ): WakeRow | undefined {
    const at = this.now();
    const tx = this.db.transaction(() => {
      const nonce = randomBytes(3).toString('hex');
      const info = this.db
        .prepare(`INSERT INTO queue_wakes (seat, session_row, digest, token, state, attempts, next_at, last_result, created_at, updated_at, holder_pid, holder_start, items_json)
        VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?) ON CONFLICT (seat, session_row, digest) DO NOTHING`)
        .run(
          k.seat,
          k.sessionRow,
          k.digest,
          `pending-${nonce}`,
          s.state,
          s.attempts,
          s.nextAt,
          s.lastResult,
          at,
          at,
          s.holder?.pid ?? null,
          s.holder?.start ?? null,
          JSON.stringify(k.items),
        );
      if (info.changes === 0) return undefined;
      const id = Number(info.lastInsertRowid);
      this.db.prepare('UPDATE queue_wakes SET token = ? WHERE id = ?').run(`w${id}-${nonce}`, id);
      return id;
    });
    const id = tx.immediate();
    return id === undefined ? undefined : this.get(id);
  }

  /** Takes a row to type it: only if nobody changed it since `seen` was read. */
  take(seen: WakeRow, holder: Holder): WakeRow | undefined {
    const info = this.db
      .prepare(`UPDATE queue_wakes SET holder_pid = ?, holder_start = ?, state = 'pending', attempts = attempts + 1,
        last_result = 'typing', updated_at = ? WHERE id = ? AND updated_at = ? AND state = ? AND attempts = ?`)
      .run(holder.pid, holder.start, this.bump(seen.id), seen.id, seen.updatedAt, seen.state, seen.attempts);
    return info.changes === 1 ? this.get(seen.id) : undefined;
  }

  /**
   * Records a held, parked or failed try, only if the row is still as `seen` (its holder, or a
   * waker that read it): a stale writer must never turn a sent wake back into a pending one.
   */
  release(
    seen: WakeRow,
    s: { lastResult: string; nextAt: number; attempts?: number; state?: 'pending' | 'parked' },
  ): boolean {
    const info = this.db
      .prepare(`UPDATE queue_wakes SET holder_pid = NULL, holder_start = NULL, last_result = ?, next_at = ?, state = COALESCE(?, state),
        attempts = COALESCE(?, attempts), updated_at = ? WHERE id = ? AND updated_at = ? AND state = ?`)
      .run(
        s.lastResult,
        s.nextAt,
        s.state ?? null,
        s.attempts ?? null,
        this.bump(seen.id),
        seen.id,
        seen.updatedAt,
        seen.state,
      );
    return info.changes === 1;
  }

  markSent(id: number, result: string): void {
    this.db
      .prepare(
        "UPDATE queue_wakes SET state = 'sent', holder_pid = NULL, holder_start = NULL, last_result = ?, updated_at = ? WHERE id = ?",
      )
      .run(result, this.bump(id), id);
  }

  supersede(id: number): void {
    this.db
      .prepare(
        "UPDATE queue_wakes SET state = 'superseded', holder_pid = NULL, holder_start = NULL, updated_at = ? WHERE id = ? AND state IN ('pending', 'parked')",
      )
      .run(this.bump(id), id);
  }

  /** updated_at doubles as the row's version for take(): every write moves it forward. */
  private bump(id: number): number {
    const r = this.db.prepare('SELECT updated_at FROM queue_wakes WHERE id = ?').get(id) as
      | { updated_at: number }
      | undefined;
    return Math.max(this.now(), (r?.updated_at ?? 0) + 1);
  }
}
