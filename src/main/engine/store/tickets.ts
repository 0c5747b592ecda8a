import type { Db } from './db';

/** A sender's place in a seat's line (see delivery/lease.ts): who holds it, by pid and start time. */
export interface Ticket {
  id: number;
  holderPid: number;
  holderStart: string | null;
}

/** The delivery_tickets table: every sender's ticket, in the order they asked. */
export class TicketRepo {
  private readonly insert;
  private readonly before;
  private readonly remove;
  constructor(db: Db) {
    this.insert = db.prepare(
      'INSERT INTO delivery_tickets (seat, holder_pid, holder_start, created_at) VALUES (?, ?, ?, ?)',
    );
    this.before = db.prepare<[string, number], Ticket>(
      'SELECT id, holder_pid AS holderPid, holder_start AS holderStart FROM delivery_tickets WHERE seat = ? AND id < ? ORDER BY id',
    );
    this.remove = db.prepare('DELETE FROM delivery_tickets WHERE id = ?');
  }

  take(seat: string, holder: { pid: number; start: string | null }, at: number): number {
    return Number(this.insert.run(seat, holder.pid, holder.start, at).lastInsertRowid);
  }

  /** The tickets of `seat` taken before `id`, oldest first. */
  ahead(seat: string, id: number): Ticket[] {
    return this.before.all(seat, id);
  }

  drop(id: number): void {
    this.remove.run(id);
  }
}
