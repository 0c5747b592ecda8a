import { randomBytes } from 'node:crypto';
import type { Db } from '../store';
import type { WakeRowState } from './wake-plan';

export interface WakeRow extends WakeRowState {
  id: number;
  seat: string;
  sessionRow: number;
  digest: string;
  token: string;
  attempts: number;
  items: number[];
  createdAt: number;
  updatedAt: number;
}

interface Raw {
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

const toRow = (r: Raw): WakeRow => ({
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

export interface Holder {
  pid: number;
  start: string | null;
}

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
      .get(seat, sessionRow, digest) as Raw | undefined;
    return r ? toRow(r) : undefined;
  }

  get(id: number): WakeRow | undefined {
    const r = this.db.prepare('SELECT * FROM queue_wakes WHERE id = ?').get(id) as Raw | undefined;
    return r ? toRow(r) : undefined;
  }

  /** Unfinished rows of a seat (pending or parked), for superseding. */
  unfinished(seat: string): WakeRow[] {
    return (
      this.db
        .prepare("SELECT * FROM queue_wakes WHERE seat = ? AND state IN ('pending', 'parked') ORDER BY id")
        .all(seat) as Raw[]
    ).map(toRow);
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
