import type { Db } from './db';

export interface EventRow {
  seq: number;
  at: number;
  kind: string;
  rig: string | null;
  seat: string | null;
  data: Record<string, unknown>;
}

import type { RestoreEventKind } from './restore-repos';
import type { PromptEventKind } from '../prompts/events';

/** Event kinds are stable strings; consumers (the window, tests) match on them. */
export type EventKind =
  | RestoreEventKind
  | PromptEventKind
  | 'rig.up'
  | 'rig.down'
  | 'seat.launch'
  | 'host.added'
  | 'host.reachable'
  | 'host.unreachable'
  | 'seat.launch_refused'
  | 'seat.identity_bound'
  | 'seat.conversation_bound'
  | 'seat.stop'
  | 'seat.kill'
  | 'seat.kill_not_removed'
  | 'seat.already_gone'
  | 'seat.send'
  | 'seat.send_refused'
  | 'seat.send_held'
  | 'seat.activity'
  | 'seat.send_override'
  | 'queue.created'
  | 'queue.moved'
  | 'queue.wake'
  | 'queue.wake_held'
  | 'fence.reserved'
  | 'fence.helper_invoked'
  | 'fence.created'
  | 'fence.released'
  | 'fence.abandoned'
  | 'fence.census';

export class EventLog {
  private readonly insert;
  constructor(private readonly db: Db, private readonly now: () => number) {
    this.insert = db.prepare('INSERT INTO events (at, kind, rig, seat, data_json) VALUES (?, ?, ?, ?, ?)');
  }

  append(kind: EventKind, where: { rig?: string | null; seat?: string | null }, data: Record<string, unknown> = {}): number {
    const info = this.insert.run(this.now(), kind, where.rig ?? null, where.seat ?? null, JSON.stringify(data));
    return Number(info.lastInsertRowid);
  }

  list(filter: { seat?: string; rig?: string; kind?: string; afterSeq?: number; limit?: number } = {}): EventRow[] {
    const where: string[] = [];
    const args: unknown[] = [];
    if (filter.seat) (where.push('seat = ?'), args.push(filter.seat));
    if (filter.rig) (where.push('rig = ?'), args.push(filter.rig));
    if (filter.kind) (where.push('kind = ?'), args.push(filter.kind));
    if (filter.afterSeq !== undefined) (where.push('seq > ?'), args.push(filter.afterSeq));
    const sql = `SELECT seq, at, kind, rig, seat, data_json FROM events ${where.length ? 'WHERE ' + where.join(' AND ') : ''} ORDER BY seq LIMIT ?`;
    args.push(filter.limit ?? 10_000);
    return (this.db.prepare(sql).all(...args) as { seq: number; at: number; kind: string; rig: string | null; seat: string | null; data_json: string }[]).map(
      (r) => ({ seq: r.seq, at: r.at, kind: r.kind, rig: r.rig, seat: r.seat, data: JSON.parse(r.data_json) as Record<string, unknown> }),
    );
  }
}
