import type { EventRow } from '../../../shared/contract/engine';
import type { Db } from './db';
import type { EventKind } from './event-kinds';

export type { EventKind };

export type { EventRow };

export class EventLog {
  private readonly insert;
  constructor(
    private readonly db: Db,
    private readonly now: () => number,
  ) {
    this.insert = db.prepare('INSERT INTO events (at, kind, rig, seat, data_json) VALUES (?, ?, ?, ?, ?)');
  }

  append(
    kind: EventKind,
    where: { rig?: string | null; seat?: string | null },
    data: Record<string, unknown> = {},
  ): number {
    const info = this.insert.run(this.now(), kind, where.rig ?? null, where.seat ?? null, JSON.stringify(data));
    return Number(info.lastInsertRowid);
  }

  list(filter: { seat?: string; rig?: string; kind?: string; afterSeq?: number; limit?: number } = {}): EventRow[] {
    const where: string[] = [];
    const args: unknown[] = [];
    if (filter.seat) where.push('seat = ?'), args.push(filter.seat);
    if (filter.rig) where.push('rig = ?'), args.push(filter.rig);
    if (filter.kind) where.push('kind = ?'), args.push(filter.kind);
    if (filter.afterSeq !== undefined) where.push('seq > ?'), args.push(filter.afterSeq);
    const sql = `SELECT seq, at, kind, rig, seat, data_json FROM events ${where.length ? 'WHERE ' + where.join(' AND ') : ''} ORDER BY seq LIMIT ?`;
    args.push(filter.limit ?? 10_000);
    return (
      this.db.prepare(sql).all(...args) as {
        seq: number;
        at: number;
        kind: string;
        rig: string | null;
        seat: string | null;
        data_json: string;
      }[]
    ).map((r) => ({
      seq: r.seq,
      at: r.at,
      kind: r.kind,
      rig: r.rig,
      seat: r.seat,
      data: JSON.parse(r.data_json) as Record<string, unknown>,
    }));
  }
}
