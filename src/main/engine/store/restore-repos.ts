import type { Db } from './db';
import type { EventKind } from './events';
import type { Store } from './index';
import { RESTORE_EVENT_KINDS, type RestoreEventKind } from './event-kinds';

/** Repositories for restore's tables (migration 3), built over `store.db` without touching Store. */

export interface SnapshotSeat {
  seat: string;
  runtime: string;
  cwd: string;
  restorePolicy: string;
  conversationId: string | null;
  evidence: Record<string, unknown>;
  stoppedOnPurpose: boolean;
  state: 'running' | 'stopped' | 'gone' | 'unknown';
}

export interface Snapshot {
  id: number;
  rig: string;
  reason: string;
  takenAt: number;
  seats: SnapshotSeat[];
}

export class SnapshotRepo {
  constructor(
    private readonly db: Db,
    private readonly now: () => number,
  ) {}

  insert(rig: string, reason: string, seats: readonly SnapshotSeat[]): Snapshot {
    const t = this.now();
    const id = this.db
      .transaction(() => {
        const info = this.db
          .prepare('INSERT INTO snapshots (rig, reason, taken_at) VALUES (?, ?, ?)')
          .run(rig, reason, t);
        const sid = Number(info.lastInsertRowid);
        const ins =
          this.db.prepare(`INSERT INTO snapshot_seats (snapshot_id, seat, runtime, cwd, restore_policy, conversation_id, evidence_json, stopped_on_purpose, state)
        VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)`);
        for (const s of seats)
          ins.run(
            sid,
            s.seat,
            s.runtime,
            s.cwd,
            s.restorePolicy,
            s.conversationId,
            JSON.stringify(s.evidence),
            s.stoppedOnPurpose ? 1 : 0,
            s.state,
          );
        return sid;
      })
      .immediate();
    return this.get(id)!;
  }

  get(id: number): Snapshot | undefined {
    const head = this.db.prepare('SELECT id, rig, reason, taken_at AS takenAt FROM snapshots WHERE id = ?').get(id) as
      | Omit<Snapshot, 'seats'>
      | undefined;
    if (!head) return undefined;
    const rows = this.db.prepare('SELECT * FROM snapshot_seats WHERE snapshot_id = ? ORDER BY seat').all(id) as {
      seat: string;
      runtime: string;
      cwd: string;
      restore_policy: string;
      conversation_id: string | null;
      evidence_json: string;
      stopped_on_purpose: number;
      state: SnapshotSeat['state'];
    }[];
    return {
      ...head,
      seats: rows.map((r) => ({
        seat: r.seat,
        runtime: r.runtime,
        cwd: r.cwd,
        restorePolicy: r.restore_policy,
        conversationId: r.conversation_id,
        evidence: JSON.parse(r.evidence_json) as Record<string, unknown>,
        stoppedOnPurpose: r.stopped_on_purpose === 1,
        state: r.state,
      })),
    };
  }

  list(rig?: string, limit = 50): Omit<Snapshot, 'seats'>[] {
    return (
      rig
        ? this.db
            .prepare(
              'SELECT id, rig, reason, taken_at AS takenAt FROM snapshots WHERE rig = ? ORDER BY id DESC LIMIT ?',
            )
            .all(rig, limit)
        : this.db
            .prepare('SELECT id, rig, reason, taken_at AS takenAt FROM snapshots ORDER BY id DESC LIMIT ?')
            .all(limit)
    ) as Omit<Snapshot, 'seats'>[];
  }
}

export interface RestoreRun {
  id: number;
  rig: string;
  snapshotId: number;
  holderPid: number;
  state: 'running' | 'finished' | 'interrupted';
  outcome: string | null;
  startedAt: number;
  finishedAt: number | null;
}

export class RestoreRunRepo {
  constructor(
    private readonly db: Db,
    private readonly now: () => number,
  ) {}

  start(rig: string, snapshotId: number, holderPid: number): number {
    const info = this.db
      .prepare(
        "INSERT INTO restore_runs (rig, snapshot_id, holder_pid, state, started_at) VALUES (?, ?, ?, 'running', ?)",
      )
      .run(rig, snapshotId, holderPid, this.now());
    return Number(info.lastInsertRowid);
  }

  finish(id: number, outcome: string, result: unknown): void {
    this.db
      .prepare(
        "UPDATE restore_runs SET state = 'finished', outcome = ?, result_json = ?, finished_at = ? WHERE id = ? AND state = 'running'",
      )
      .run(outcome, JSON.stringify(result), this.now(), id);
  }

  /** Marks a run whose holder died; true when this call made the change. */
  interrupt(id: number): boolean {
    return (
      this.db
        .prepare("UPDATE restore_runs SET state = 'interrupted', finished_at = ? WHERE id = ? AND state = 'running'")
        .run(this.now(), id).changes === 1
    );
  }

  running(): RestoreRun[] {
    return this.db
      .prepare(`SELECT id, rig, snapshot_id AS snapshotId, holder_pid AS holderPid, state, outcome, started_at AS startedAt, finished_at AS finishedAt
      FROM restore_runs WHERE state = 'running' ORDER BY id`)
      .all() as RestoreRun[];
  }
}

export interface DecisionRow {
  id: number;
  seat: string;
  rig: string;
  kind: 'restore';
  reason: string;
  runtime: string;
  conversationId: string | null;
  snapshotId: number | null;
  choices: string[];
  evidence: Record<string, unknown>;
  state: 'open' | 'answered';
  answer: string | null;
  answerReason: string | null;
  outcome: Record<string, unknown> | null;
  createdAt: number;
  answeredAt: number | null;
}

interface RawDecision {
  id: number;
  seat: string;
  rig: string;
  kind: 'restore';
  reason: string;
  runtime: string;
  conversation_id: string | null;
  snapshot_id: number | null;
  choices_json: string;
  evidence_json: string;
  state: 'open' | 'answered';
  answer: string | null;
  answer_reason: string | null;
  outcome_json: string | null;
  created_at: number;
  answered_at: number | null;
}

const toDecision = (r: RawDecision): DecisionRow => ({
  id: r.id,
  seat: r.seat,
  rig: r.rig,
  kind: r.kind,
  reason: r.reason,
  runtime: r.runtime,
  conversationId: r.conversation_id,
  snapshotId: r.snapshot_id,
  choices: JSON.parse(r.choices_json) as string[],
  evidence: JSON.parse(r.evidence_json) as Record<string, unknown>,
  state: r.state,
  answer: r.answer,
  answerReason: r.answer_reason,
  outcome: r.outcome_json ? (JSON.parse(r.outcome_json) as Record<string, unknown>) : null,
  createdAt: r.created_at,
  answeredAt: r.answered_at,
});

export class DecisionRepo {
  constructor(
    private readonly db: Db,
    private readonly now: () => number,
  ) {}

  /**
   * Opens the seat's decision, or refreshes the one already open (a second restore asks the same
   * question, it does not ask twice). Returns the row and whether it is new.
   */
  open(d: {
    seat: string;
    rig: string;
    reason: string;
    runtime: string;
    conversationId: string | null;
    snapshotId: number | null;
    choices: string[];
    evidence: Record<string, unknown>;
  }): { row: DecisionRow; created: boolean } {
    const t = this.now();
    return this.db
      .transaction(() => {
        const existing = this.openFor(d.seat);
        if (existing) {
          this.db
            .prepare(
              'UPDATE decisions SET reason = ?, conversation_id = ?, snapshot_id = ?, choices_json = ?, evidence_json = ?, updated_at = ? WHERE id = ?',
            )
            .run(
              d.reason,
              d.conversationId,
              d.snapshotId,
              JSON.stringify(d.choices),
              JSON.stringify(d.evidence),
              t,
              existing.id,
            );
          return { row: this.get(existing.id)!, created: false };
        }
        const info = this.db
          .prepare(`INSERT INTO decisions (seat, rig, kind, reason, runtime, conversation_id, snapshot_id, choices_json, evidence_json, state, created_at, updated_at)
        VALUES (?, ?, 'restore', ?, ?, ?, ?, ?, ?, 'open', ?, ?)`)
          .run(
            d.seat,
            d.rig,
            d.reason,
            d.runtime,
            d.conversationId,
            d.snapshotId,
            JSON.stringify(d.choices),
            JSON.stringify(d.evidence),
            t,
            t,
          );
        return { row: this.get(Number(info.lastInsertRowid))!, created: true };
      })
      .immediate();
  }

  get(id: number): DecisionRow | undefined {
    const r = this.db.prepare('SELECT * FROM decisions WHERE id = ?').get(id) as RawDecision | undefined;
    return r ? toDecision(r) : undefined;
  }

  openFor(seat: string): DecisionRow | undefined {
    const r = this.db.prepare("SELECT * FROM decisions WHERE seat = ? AND state = 'open'").get(seat) as
      | RawDecision
      | undefined;
    return r ? toDecision(r) : undefined;
  }

  list(filter: { rig?: string; all?: boolean } = {}): DecisionRow[] {
    const where: string[] = [];
    const args: unknown[] = [];
    if (filter.rig) where.push('rig = ?'), args.push(filter.rig);
    if (!filter.all) where.push("state = 'open'");
    return (
      this.db
        .prepare(`SELECT * FROM decisions ${where.length ? 'WHERE ' + where.join(' AND ') : ''} ORDER BY id`)
        .all(...args) as RawDecision[]
    ).map(toDecision);
  }

  /** Compare-and-set open -> answered; false when someone answered it first. */
  answer(id: number, answer: string, reason: string): boolean {
    const t = this.now();
    return (
      this.db
        .prepare(
          "UPDATE decisions SET state = 'answered', answer = ?, answer_reason = ?, answered_at = ?, updated_at = ? WHERE id = ? AND state = 'open'",
        )
        .run(answer, reason, t, t, id).changes === 1
    );
  }

  setOutcome(id: number, outcome: Record<string, unknown>): void {
    this.db
      .prepare('UPDATE decisions SET outcome_json = ?, updated_at = ? WHERE id = ?')
      .run(JSON.stringify(outcome), this.now(), id);
  }
}

export interface RestoreRepos {
  snapshots: SnapshotRepo;
  runs: RestoreRunRepo;
  decisions: DecisionRepo;
  /** Seats that have had an occupant at some time (any session row). */
  everRan(seat: string): boolean;
  /** Restore's events. Kinds are stable strings: see RESTORE_EVENT_KINDS. */
  event(
    kind: RestoreEventKind,
    where: { rig?: string | null; seat?: string | null },
    data?: Record<string, unknown>,
  ): number;
}

export { RESTORE_EVENT_KINDS, type RestoreEventKind };

const cache = new WeakMap<Store, RestoreRepos>();

/** One set of repositories per Store; the clock is the events table's own (the store's `now`). */
export function restoreRepos(store: Store, now: () => number = Date.now): RestoreRepos {
  let r = cache.get(store);
  if (!r) {
    const db = store.db;
    const ran = db.prepare('SELECT 1 FROM sessions WHERE seat = ? LIMIT 1');
    r = {
      snapshots: new SnapshotRepo(db, now),
      runs: new RestoreRunRepo(db, now),
      decisions: new DecisionRepo(db, now),
      everRan: (seat) => ran.get(seat) !== undefined,
      // EventKind is a closed union in store/events.ts (not ours to edit); the kinds above extend it.
      event: (kind, where, data = {}) => store.events.append(kind as unknown as EventKind, where, data),
    };
    cache.set(store, r);
  }
  return r;
}
