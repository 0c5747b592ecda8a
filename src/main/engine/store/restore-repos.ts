import { z } from 'zod';
import {
  DECISION_CHOICE,
  type DecisionChoice,
  type DecisionItem,
  type DecisionOutcome,
  type DecisionReason,
  decisionItem,
  decisionReason,
  type Snapshot,
  type SnapshotHead,
  snapshotEvidence,
  snapshotHead,
  type SnapshotReason,
  type SnapshotSeat,
  snapshotSeat,
} from '../../../shared/contract';
import type { Db } from './db';
import type { EventLog } from './events';
import { RESTORE_EVENT_KINDS, type RestoreEventKind } from './event-kinds';

/**
 * Repositories for restore's tables (migration 3), built over `store.db` without touching Store.
 * Rows are the contract's types (shared/contract/restore-records.ts); each row read is parsed
 * against its schema, JSON columns included, so a row the contract does not describe fails loudly.
 */

export type { DecisionItem, Snapshot, SnapshotHead, SnapshotSeat };

const int = z.number().int();
const snapshotSeatRow = z.object({
  seat: z.string(),
  runtime: z.string(),
  cwd: z.string(),
  restore_policy: z.string(),
  conversation_id: z.string().nullable(),
  evidence_json: z.string(),
  stopped_on_purpose: int,
  state: snapshotSeat.shape.state,
});

export class SnapshotRepo {
  constructor(
    private readonly db: Db,
    private readonly now: () => number,
  ) {}

  insert(rig: string, reason: SnapshotReason, seats: readonly SnapshotSeat[]): Snapshot {
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
    const taken = this.get(id);
    if (!taken) throw new Error(`snapshot ${id} was written but cannot be read back`);
    return taken;
  }

  get(id: number): Snapshot | undefined {
    const row = this.db.prepare('SELECT id, rig, reason, taken_at AS takenAt FROM snapshots WHERE id = ?').get(id);
    if (row === undefined) return undefined;
    const rows = this.db.prepare('SELECT * FROM snapshot_seats WHERE snapshot_id = ? ORDER BY seat').all(id);
    return {
      ...snapshotHead.parse(row),
      seats: rows.map((raw) => {
        const r = snapshotSeatRow.parse(raw);
        return {
          seat: r.seat,
          runtime: r.runtime,
          cwd: r.cwd,
          restorePolicy: r.restore_policy,
          conversationId: r.conversation_id,
          evidence: snapshotEvidence.parse(JSON.parse(r.evidence_json)),
          stoppedOnPurpose: r.stopped_on_purpose === 1,
          state: r.state,
        };
      }),
    };
  }

  list(rig?: string, limit = 50): SnapshotHead[] {
    const rows = rig
      ? this.db
          .prepare('SELECT id, rig, reason, taken_at AS takenAt FROM snapshots WHERE rig = ? ORDER BY id DESC LIMIT ?')
          .all(rig, limit)
      : this.db
          .prepare('SELECT id, rig, reason, taken_at AS takenAt FROM snapshots ORDER BY id DESC LIMIT ?')
          .all(limit);
    return rows.map((r) => snapshotHead.parse(r));
  }
}

const restoreRun = z.object({
  id: int,
  rig: z.string(),
  snapshotId: int,
  holderPid: int,
  state: z.enum(['running', 'finished', 'interrupted']),
  outcome: z.string().nullable(),
  startedAt: z.number(),
  finishedAt: z.number().nullable(),
});
export type RestoreRun = z.output<typeof restoreRun>;

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
      .all()
      .map((r) => restoreRun.parse(r));
  }
}

const decisionRow = z.object({
  id: int,
  seat: z.string(),
  rig: z.string(),
  kind: z.enum(['restore', 'budget']),
  reason: decisionReason,
  runtime: z.string(),
  conversation_id: z.string().nullable(),
  snapshot_id: int.nullable(),
  choices_json: z.string(),
  evidence_json: z.string(),
  state: z.enum(['open', 'answered']),
  answer: DECISION_CHOICE.nullable(),
  answer_reason: z.string().nullable(),
  outcome_json: z.string().nullable(),
  created_at: z.number(),
  answered_at: z.number().nullable(),
});

/** A row as the contract's decision: the JSON columns parsed, the open/answered shape checked. */
const toDecision = (raw: unknown): DecisionItem => {
  const r = decisionRow.parse(raw);
  return decisionItem.parse({
    id: r.id,
    seat: r.seat,
    rig: r.rig,
    kind: r.kind,
    reason: r.reason,
    runtime: r.runtime,
    conversationId: r.conversation_id,
    snapshotId: r.snapshot_id,
    choices: JSON.parse(r.choices_json),
    evidence: JSON.parse(r.evidence_json),
    state: r.state,
    answer: r.answer,
    answerReason: r.answer_reason,
    outcome: r.outcome_json === null ? null : JSON.parse(r.outcome_json),
    createdAt: r.created_at,
    answeredAt: r.answered_at,
  });
};

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
    reason: DecisionReason;
    runtime: string;
    conversationId: string | null;
    snapshotId: number | null;
    choices: DecisionChoice[];
    evidence: Record<string, unknown>;
    /** Default `restore`. */
    kind?: 'restore' | 'budget';
  }): { row: DecisionItem; created: boolean } {
    const t = this.now();
    return this.db
      .transaction(() => {
        const existing = this.openFor(d.seat);
        // One open per seat: a question of the other kind stays as it is (it is answered first).
        if (existing && existing.kind !== (d.kind ?? 'restore')) return { row: existing, created: false };
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
          return { row: this.must(existing.id), created: false };
        }
        const info = this.db
          .prepare(`INSERT INTO decisions (seat, rig, kind, reason, runtime, conversation_id, snapshot_id, choices_json, evidence_json, state, created_at, updated_at)
        VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, 'open', ?, ?)`)
          .run(
            d.seat,
            d.rig,
            d.kind ?? 'restore',
            d.reason,
            d.runtime,
            d.conversationId,
            d.snapshotId,
            JSON.stringify(d.choices),
            JSON.stringify(d.evidence),
            t,
            t,
          );
        return { row: this.must(Number(info.lastInsertRowid)), created: true };
      })
      .immediate();
  }

  /**
   * The budget decisions about one scope (`evidence.budget`, `pod:pod@rig` or `rig:rig`) and day:
   * the open ones, and the release that answered one, if any.
   */
  budgetFor(key: string, day: string): { open: DecisionItem[]; release?: DecisionItem } {
    const rows = this.db
      .prepare(
        "SELECT * FROM decisions WHERE kind = 'budget' AND json_extract(evidence_json, '$.budget') = ? AND json_extract(evidence_json, '$.day') = ? ORDER BY id",
      )
      .all(key, day)
      .map(toDecision);
    const release = rows.find((d) => d.state === 'answered' && d.answer === 'release');
    return { open: rows.filter((d) => d.state === 'open'), ...(release ? { release } : {}) };
  }

  get(id: number): DecisionItem | undefined {
    const r = this.db.prepare('SELECT * FROM decisions WHERE id = ?').get(id);
    return r === undefined ? undefined : toDecision(r);
  }

  /** A row this repository has just written. */
  private must(id: number): DecisionItem {
    const d = this.get(id);
    if (!d) throw new Error(`decision ${id} was written but cannot be read back`);
    return d;
  }

  openFor(seat: string): DecisionItem | undefined {
    const r = this.db.prepare("SELECT * FROM decisions WHERE seat = ? AND state = 'open'").get(seat);
    return r === undefined ? undefined : toDecision(r);
  }

  list(filter: { rig?: string; all?: boolean } = {}): DecisionItem[] {
    const where: string[] = [];
    const args: unknown[] = [];
    if (filter.rig) where.push('rig = ?'), args.push(filter.rig);
    if (!filter.all) where.push("state = 'open'");
    return this.db
      .prepare(`SELECT * FROM decisions ${where.length ? `WHERE ${where.join(' AND ')}` : ''} ORDER BY id`)
      .all(...args)
      .map(toDecision);
  }

  /** Compare-and-set open -> answered; false when someone answered it first. */
  answer(id: number, answer: DecisionChoice, reason: string): boolean {
    const t = this.now();
    return (
      this.db
        .prepare(
          "UPDATE decisions SET state = 'answered', answer = ?, answer_reason = ?, answered_at = ?, updated_at = ? WHERE id = ? AND state = 'open'",
        )
        .run(answer, reason, t, t, id).changes === 1
    );
  }

  setOutcome(id: number, outcome: DecisionOutcome): void {
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

/** Snapshots, restore runs and decisions, on the store's clock (the engine's), reached as `store.restore`. */
export function makeRestoreRepos(db: Db, now: () => number, events: EventLog): RestoreRepos {
  const ran = db.prepare('SELECT 1 FROM sessions WHERE seat = ? LIMIT 1');
  return {
    snapshots: new SnapshotRepo(db, now),
    runs: new RestoreRunRepo(db, now),
    decisions: new DecisionRepo(db, now),
    everRan: (seat) => ran.get(seat) !== undefined,
    event: (kind, where, data = {}) => events.append(kind, where, data),
  };
}
