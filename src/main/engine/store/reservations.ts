import type { Db } from './db';
import type { SessionIdentity } from '../tmux/identity';

/** What a reservation's holder set out to create, so a census can bind what it finds. */
export interface LaunchPlan {
  mode: 'fresh' | 'resume';
  runtime: string;
  conversationId?: string;
}

export type ReservationPhase = 'reserved' | 'helper_invoked' | 'created' | 'released' | 'abandoned';
export const ACTIVE_PHASES: readonly ReservationPhase[] = ['reserved', 'helper_invoked', 'created'];

export interface ReservationRow {
  id: number;
  seat: string;
  phase: ReservationPhase;
  attempt: string;
  holderPid: number;
  holderStart: string | null;
  server: string;
  sessionName: string;
  identity: SessionIdentity | null;
  plan: LaunchPlan | null;
  outcome: string | null;
  createdAt: number;
  updatedAt: number;
}

interface Raw {
  id: number;
  seat: string;
  phase: ReservationPhase;
  attempt: string;
  holder_pid: number;
  holder_start: string | null;
  tmux_socket: string;
  session_name: string;
  identity_json: string | null;
  plan_json: string | null;
  outcome: string | null;
  created_at: number;
  updated_at: number;
}

const toRow = (r: Raw): ReservationRow => ({
  id: r.id,
  seat: r.seat,
  phase: r.phase,
  attempt: r.attempt,
  holderPid: r.holder_pid,
  holderStart: r.holder_start,
  server: r.tmux_socket,
  sessionName: r.session_name,
  identity: r.identity_json ? (JSON.parse(r.identity_json) as SessionIdentity) : null,
  plan: r.plan_json ? (JSON.parse(r.plan_json) as LaunchPlan) : null,
  outcome: r.outcome,
  createdAt: r.created_at,
  updatedAt: r.updated_at,
});

/** Legal moves of the create fence; anything else is a bug or a lost race and is refused. */
const NEXT: Record<ReservationPhase, readonly ReservationPhase[]> = {
  reserved: ['helper_invoked', 'abandoned'],
  helper_invoked: ['created', 'abandoned'],
  created: ['released', 'abandoned'],
  released: [],
  abandoned: [],
};

export class ReservationRepo {
  constructor(
    private readonly db: Db,
    private readonly now: () => number,
  ) {}

  /**
   * Takes the seat's reservation in one IMMEDIATE transaction. The partial unique index makes a
   * second active row impossible even if two engines get here in the same millisecond.
   */
  reserve(
    input: {
      seat: string;
      attempt: string;
      holderPid: number;
      holderStart: string | null;
      server: string;
      sessionName: string;
      plan: LaunchPlan;
    },
    precondition: () => string | undefined = () => undefined,
  ): { ok: true; row: ReservationRow } | { ok: false; existing: ReservationRow } | { ok: false; refused: string } {
    const tx = this.db.transaction(() => {
      const existing = this.active(input.seat);
      if (existing) return { ok: false as const, existing };
      // Checked inside the same transaction, so a launch that finished a moment ago is seen.
      const refused = precondition();
      if (refused) return { ok: false as const, refused };
      const t = this.now();
      const info = this.db
        .prepare(`INSERT INTO reservations (seat, phase, attempt, holder_pid, holder_start, tmux_socket, session_name, plan_json, created_at, updated_at)
        VALUES (?, 'reserved', ?, ?, ?, ?, ?, ?, ?, ?)`)
        .run(
          input.seat,
          input.attempt,
          input.holderPid,
          input.holderStart,
          input.server,
          input.sessionName,
          JSON.stringify(input.plan),
          t,
          t,
        );
      return { ok: true as const, row: this.get(Number(info.lastInsertRowid))! };
    });
    return tx.immediate();
  }

  get(id: number): ReservationRow | undefined {
    const r = this.db.prepare('SELECT * FROM reservations WHERE id = ?').get(id) as Raw | undefined;
    return r ? toRow(r) : undefined;
  }

  active(seat: string): ReservationRow | undefined {
    const r = this.db
      .prepare(
        "SELECT * FROM reservations WHERE seat = ? AND phase IN ('reserved','helper_invoked','created') ORDER BY id DESC LIMIT 1",
      )
      .get(seat) as Raw | undefined;
    return r ? toRow(r) : undefined;
  }

  allActive(): ReservationRow[] {
    return (
      this.db
        .prepare("SELECT * FROM reservations WHERE phase IN ('reserved','helper_invoked','created') ORDER BY id")
        .all() as Raw[]
    ).map(toRow);
  }

  history(seat: string): ReservationRow[] {
    return (this.db.prepare('SELECT * FROM reservations WHERE seat = ? ORDER BY id').all(seat) as Raw[]).map(toRow);
  }

  /** Compare-and-set: moves `id` from `from` to `to`; false when someone else moved it first. */
  advance(
    id: number,
    from: ReservationPhase,
    to: ReservationPhase,
    fields: { identity?: SessionIdentity; outcome?: string } = {},
  ): boolean {
    if (!NEXT[from].includes(to)) throw new Error(`illegal fence move ${from} -> ${to}`);
    const sets = ['phase = ?', 'updated_at = ?'];
    const args: unknown[] = [to, this.now()];
    if (fields.identity) sets.push('identity_json = ?'), args.push(JSON.stringify(fields.identity));
    if (fields.outcome !== undefined) sets.push('outcome = ?'), args.push(fields.outcome);
    args.push(id, from);
    const info = this.db.prepare(`UPDATE reservations SET ${sets.join(', ')} WHERE id = ? AND phase = ?`).run(...args);
    return info.changes === 1;
  }
}
