import type { EventRow } from '../../../shared/contract/engine';
import type { Statement } from 'better-sqlite3';
import type { Db } from './db';
import type { EventKind } from './event-kinds';

export type { EventKind };

export type { EventRow };

/** A row of the events table as SQLite returns it. */
export interface RawEvent {
  seq: number;
  at: number;
  kind: string;
  rig: string | null;
  seat: string | null;
  data_json: string;
}

/** Which rows `list` gives: by seat, rig, kind, after a seq; the first `limit`, or the `newest` N. */
export interface EventFilter {
  seat?: string;
  rig?: string;
  kind?: string;
  afterSeq?: number;
  limit?: number;
  newest?: number;
}

/**
 * The kinds that change what a seat is or does (`ps`'s state and activity): the monitor's activity
 * changes, launches (restore's too go through the fence), stops, and sessions found gone.
 */
/** How many of a seat's newest activity rows `turnEndedAt` reads (idle rows repeat as drafts change). */
const TURN_LOOKBACK = 12;

export const SEAT_STATE_KINDS = [
  'seat.activity',
  'seat.launch',
  'seat.stop',
  'seat.already_gone',
  'reconcile.ended_gone',
] as const satisfies readonly EventKind[];

function isRecord(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

export class EventLog {
  private readonly insert;
  private readonly lastStateAt;
  private readonly lastActivities;
  /**
   * list()'s statements by their SQL (a handful of shapes): a window polls the log ten times a
   * second, and compiling the query each time was most of what that poll cost at rest.
   */
  private readonly listed = new Map<string, Statement<(string | number)[], RawEvent>>();
  private readonly dataVersion;
  /** Rows this connection has appended (SQLite's data_version counts only other connections' commits). */
  private appended = 0;
  /** The last tail poll that found nothing new: until anything is committed, the next finds nothing too. */
  private quiet?: { afterSeq: number; version: unknown; appended: number };
  /**
   * Each seat's stateSince and turnEndedAt as last read, while nothing was committed since: every
   * look of ps asks both for every seat (400 indexed walks at 200 seats), and at rest none changed.
   */
  private readonly seatTimes = new Map<string, { since?: number; ended?: number }>();
  private seatTimesAt?: { version: unknown; appended: number };
  constructor(
    private readonly db: Db,
    private readonly now: () => number,
  ) {
    this.insert = db.prepare('INSERT INTO events (at, kind, rig, seat, data_json) VALUES (?, ?, ?, ?, ?)');
    this.dataVersion = db.prepare<[], { data_version: number }>('PRAGMA data_version');
    // Walks the seat's rows newest first on events_by_seat(seat, seq) and stops at the first match.
    this.lastStateAt = db.prepare<[string, ...string[]], { at: number }>(
      `SELECT at FROM events WHERE seat = ? AND kind IN (${SEAT_STATE_KINDS.map(() => '?').join(', ')}) ORDER BY seq DESC LIMIT 1`,
    );
    this.lastActivities = db.prepare<[string], { at: number; label: string | null }>(
      `SELECT at, json_extract(data_json, '$.label') AS label FROM events WHERE seat = ? AND kind = 'seat.activity' ORDER BY seq DESC LIMIT ${TURN_LOOKBACK}`,
    );
  }

  append(
    kind: EventKind,
    where: { rig?: string | null; seat?: string | null },
    data: Record<string, unknown> = {},
  ): number {
    const info = this.insert.run(this.now(), kind, where.rig ?? null, where.seat ?? null, JSON.stringify(data));
    this.appended++;
    return Number(info.lastInsertRowid);
  }

  /** When the seat's state or activity last changed (ms epoch), or undefined when the log never said. */
  stateSince(seat: string): number | undefined {
    const t = this.timesOf(seat);
    if (!('since' in t)) t.since = this.lastStateAt.get(seat, ...SEAT_STATE_KINDS)?.at;
    return t.since;
  }

  /**
   * When the seat's last turn ended: the first `idle` after it last worked or waited for the
   * person, while it is still idle; undefined while it works, waits, or never worked on record.
   */
  turnEndedAt(seat: string): number | undefined {
    const t = this.timesOf(seat);
    if (!('ended' in t)) t.ended = this.readTurnEnded(seat);
    return t.ended;
  }

  private readTurnEnded(seat: string): number | undefined {
    let idleAt: number | undefined;
    for (const r of this.lastActivities.all(seat)) {
      if (r.label === 'idle') idleAt = r.at;
      else if (r.label === 'working' || r.label === 'needs_input') return idleAt;
      else return undefined;
    }
    return undefined;
  }

  /** The seat's remembered times, forgotten for every seat once anything was committed since. */
  private timesOf(seat: string): { since?: number; ended?: number } {
    const version = this.dataVersion.get()?.data_version;
    const at = this.seatTimesAt;
    if (!at || at.version !== version || at.appended !== this.appended) {
      this.seatTimes.clear();
      this.seatTimesAt = { version, appended: this.appended };
    }
    let t = this.seatTimes.get(seat);
    if (!t) this.seatTimes.set(seat, (t = {}));
    return t;
  }

  list(filter: EventFilter = {}): EventRow[] {
    // A window's poll for new rows, ten times a second: when nothing was committed since the last
    // one that found none (no append here, the same data_version for every other connection and
    // process), there is nothing new, and asking SQLite for data_version costs a third of the query.
    const tail = filter.afterSeq !== undefined && !filter.seat && !filter.rig && !filter.kind && !filter.newest;
    const version = tail ? this.dataVersion.get()?.data_version : undefined;
    const q = this.quiet;
    if (tail && q && q.afterSeq === filter.afterSeq && q.version === version && q.appended === this.appended) return [];
    const rows = this.query(filter);
    this.quiet =
      tail && rows.length === 0 ? { afterSeq: filter.afterSeq!, version, appended: this.appended } : undefined;
    return rows;
  }

  private query(filter: EventFilter): EventRow[] {
    const where: string[] = [];
    const args: (string | number)[] = [];
    if (filter.seat) where.push('seat = ?'), args.push(filter.seat);
    if (filter.rig) where.push('rig = ?'), args.push(filter.rig);
    if (filter.kind) where.push('kind = ?'), args.push(filter.kind);
    if (filter.afterSeq !== undefined) where.push('seq > ?'), args.push(filter.afterSeq);
    const order = filter.newest ? 'DESC' : 'ASC';
    const sql = `SELECT seq, at, kind, rig, seat, data_json FROM events ${where.length ? `WHERE ${where.join(' AND ')}` : ''} ORDER BY seq ${order} LIMIT ?`;
    args.push(filter.newest ?? filter.limit ?? 10_000);
    let stmt = this.listed.get(sql);
    if (!stmt) {
      stmt = this.db.prepare<(string | number)[], RawEvent>(sql);
      this.listed.set(sql, stmt);
    }
    const rows = stmt.all(...args).map(eventRow);
    return filter.newest ? rows.reverse() : rows;
  }
}

/**
 * A row as the contract gives it. `append` writes an object's JSON: anything else is a row written
 * by something else, kept under `value`; a row whose JSON cannot be read shows with no data.
 */
export function eventRow(r: RawEvent): EventRow {
  let data: Record<string, unknown> = {};
  try {
    const parsed: unknown = JSON.parse(r.data_json);
    data = isRecord(parsed) ? parsed : { value: parsed };
  } catch {
    /* kept with no data */
  }
  return { seq: r.seq, at: r.at, kind: r.kind, rig: r.rig, seat: r.seat, data };
}
