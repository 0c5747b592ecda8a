import { fail, type Result } from '../../../shared/errors';
import { parseSeatRef } from '../spec/names';
import type { Db } from './db';
import type { BudgetSpec, RigSpec } from '../spec';

/** The spec's order; seats made later (forks, with no position) after it, in the order they were made. */
const SPEC_ORDER = 'position IS NULL, position, rowid';

export interface SeatRow {
  seat: string;
  rig: string;
  pod: string;
  member: string;
  runtime: string;
  cwd: string;
  command: string | null;
  args: string[];
  env: Record<string, string>;
  restorePolicy: string;
  conversationId: string | null;
  stoppedOnPurpose: boolean;
  /** The host the seat runs on (`local` for this machine). */
  host: string;
  /** Its own git worktree, when the spec asks for one (`cwd` is then inside it). */
  worktree?: SeatWorktree;
  /** The merge gate's checks, as an argv. */
  checks?: string[];
}

/**
 * A seat's worktree, fixed when its rig comes up: the repository it is a worktree of, its folder,
 * its branch and the base it was made from. Restart, restore and fork find it again by these.
 */
export interface SeatWorktree {
  /** The top folder of the repository's working tree the spec's cwd is in. */
  repo: string;
  /** The worktree's folder (`<home>/worktrees/<rig>/<member>`). */
  path: string;
  branch: string;
  base: string;
}

interface RawSeat {
  seat: string;
  rig: string;
  pod: string;
  member: string;
  runtime: string;
  cwd: string;
  command: string | null;
  args_json: string;
  env_json: string;
  restore_policy: string;
  conversation_id: string | null;
  stopped_on_purpose: number;
  host?: string;
  worktree_json?: string | null;
  checks_json?: string | null;
}

const toSeat = (r: RawSeat): SeatRow => ({
  seat: r.seat,
  rig: r.rig,
  pod: r.pod,
  member: r.member,
  runtime: r.runtime,
  cwd: r.cwd,
  command: r.command,
  args: JSON.parse(r.args_json) as string[],
  env: JSON.parse(r.env_json) as Record<string, string>,
  restorePolicy: r.restore_policy,
  conversationId: r.conversation_id,
  stoppedOnPurpose: r.stopped_on_purpose === 1,
  host: r.host ?? 'local',
  ...(r.worktree_json ? { worktree: JSON.parse(r.worktree_json) as SeatWorktree } : {}),
  ...(r.checks_json ? { checks: JSON.parse(r.checks_json) as string[] } : {}),
});

/** Where each seat of a rig runs when it has a worktree: its folder there, and the worktree. */
export type Placements = ReadonlyMap<string, { cwd: string; worktree: SeatWorktree }>;

export class RigRepo {
  constructor(
    private readonly db: Db,
    private readonly now: () => number,
  ) {}

  /**
   * Records a rig from its spec. Seats that already exist keep their conversation and stop flag:
   * bringing a rig up again must never forget which conversation a seat had.
   */
  upsert(spec: RigSpec, placed: Placements = new Map()): void {
    const t = this.now();
    const tx = this.db.transaction(() => {
      this.db
        .prepare(`INSERT INTO rigs (name, spec_path, spec_json, created_at, updated_at) VALUES (?, ?, ?, ?, ?)
        ON CONFLICT(name) DO UPDATE SET spec_path = excluded.spec_path, spec_json = excluded.spec_json, updated_at = excluded.updated_at`)
        .run(spec.name, spec.specPath, JSON.stringify(spec), t, t);
      this.db.prepare('DELETE FROM pods WHERE rig = ?').run(spec.name);
      this.db.prepare('DELETE FROM edges WHERE rig = ?').run(spec.name);
      let position = 0;
      for (const pod of spec.pods) {
        this.db.prepare('INSERT INTO pods (rig, id) VALUES (?, ?)').run(spec.name, pod.id);
        for (const m of pod.members) {
          this.db
            .prepare(`INSERT INTO seats (seat, rig, pod, member, runtime, cwd, command, args_json, env_json, restore_policy, created_at, updated_at, host, position, worktree_json, checks_json)
            VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
            ON CONFLICT(seat) DO UPDATE SET pod = excluded.pod, runtime = excluded.runtime, cwd = excluded.cwd, command = excluded.command,
              args_json = excluded.args_json, env_json = excluded.env_json, restore_policy = excluded.restore_policy, updated_at = excluded.updated_at, host = excluded.host,
              position = excluded.position, worktree_json = excluded.worktree_json, checks_json = excluded.checks_json`)
            .run(
              `${m.id}@${spec.name}`,
              spec.name,
              pod.id,
              m.id,
              m.runtime,
              placed.get(`${m.id}@${spec.name}`)?.cwd ?? m.cwd,
              m.command ?? null,
              JSON.stringify(m.args),
              JSON.stringify(m.env),
              m.restorePolicy,
              t,
              t,
              m.host ?? 'local',
              position++,
              json(placed.get(`${m.id}@${spec.name}`)?.worktree),
              json(m.checks),
            );
        }
      }
      for (const h of spec.hosts ?? [])
        this.db
          .prepare(`INSERT INTO hosts (name, spec_json, source, created_at, updated_at) VALUES (?, ?, ?, ?, ?)
        ON CONFLICT(name) DO UPDATE SET spec_json = excluded.spec_json, source = excluded.source, updated_at = excluded.updated_at`)
          .run(h.name, JSON.stringify(h), `spec:${spec.name}`, t, t);
      for (const e of spec.edges)
        this.db
          .prepare('INSERT OR IGNORE INTO edges (rig, src, dst, kind) VALUES (?, ?, ?, ?)')
          .run(spec.name, e.from, e.to, e.kind);
    });
    tx.immediate();
  }

  exists(rig: string): boolean {
    return this.db.prepare('SELECT 1 FROM rigs WHERE name = ?').get(rig) !== undefined;
  }

  names(): string[] {
    return (this.db.prepare('SELECT name FROM rigs ORDER BY name').all() as { name: string }[]).map((r) => r.name);
  }

  /**
   * The daily budgets the rig's recorded spec declares: its own and each pod's. Read from the spec
   * as recorded at its last `up`, so a raised budget counts once the rig is brought up again.
   */
  budgets(rig: string): { rig?: BudgetSpec; pods: Record<string, BudgetSpec> } {
    const r = this.db.prepare('SELECT spec_json FROM rigs WHERE name = ?').get(rig) as
      | { spec_json: string }
      | undefined;
    if (!r) return { pods: {} };
    const spec = JSON.parse(r.spec_json) as Partial<RigSpec>;
    const pods: Record<string, BudgetSpec> = {};
    for (const p of spec.pods ?? []) if (p.budget) pods[p.id] = p.budget;
    return { ...(spec.budget ? { rig: spec.budget } : {}), pods };
  }

  edges(rig: string): { from: string; to: string; kind: string }[] {
    return this.db
      .prepare('SELECT src AS "from", dst AS "to", kind FROM edges WHERE rig = ? ORDER BY src, dst')
      .all(rig) as { from: string; to: string; kind: string }[];
  }

  /** A seat by a person's reference (`member@rig`), or the refusal that says which seats there are. */
  find(ref: unknown): Result<{ seat: SeatRow }> {
    const parsed = parseSeatRef(ref);
    if (!parsed.ok) return parsed;
    const seat = this.seat(parsed.seat);
    if (seat) return { ok: true, seat };
    return fail('SEAT_NOT_FOUND', `no seat ${parsed.seat}`, {
      hint: this.exists(parsed.rig)
        ? `Rig ${parsed.rig} has: ${this.seats(parsed.rig)
            .map((s) => s.seat)
            .join(', ')}.`
        : `Bring the rig up first: rigdesk up <spec.yaml>.`,
      evidence: { seat: parsed.seat },
    });
  }

  seat(seat: string): SeatRow | undefined {
    const r = this.db.prepare('SELECT * FROM seats WHERE seat = ?').get(seat) as RawSeat | undefined;
    return r ? toSeat(r) : undefined;
  }

  seats(rig?: string): SeatRow[] {
    const rows = (
      rig
        ? this.db.prepare(`SELECT * FROM seats WHERE rig = ? ORDER BY ${SPEC_ORDER}`).all(rig)
        : this.db.prepare(`SELECT * FROM seats ORDER BY rig, ${SPEC_ORDER}`).all()
    ) as RawSeat[];
    return rows.map(toSeat);
  }

  setConversation(seat: string, conversationId: string | null): void {
    this.db
      .prepare('UPDATE seats SET conversation_id = ?, updated_at = ? WHERE seat = ?')
      .run(conversationId, this.now(), seat);
  }

  setStoppedOnPurpose(seat: string, stopped: boolean): void {
    this.db
      .prepare('UPDATE seats SET stopped_on_purpose = ?, updated_at = ? WHERE seat = ?')
      .run(stopped ? 1 : 0, this.now(), seat);
  }
}

function json(v: unknown): string | null {
  return v === undefined || v === null ? null : JSON.stringify(v);
}

/** Conversations Rigdesk has seen a seat write: (runtime, id) with where its evidence lives. */
/** A conversation Rigdesk has seen, and where (its seat, home, folder, transcript). */
export interface ConversationRecord {
  runtime: string;
  id: string;
  seat: string | null;
  home: string | null;
  cwd: string | null;
  transcriptPath: string | null;
}

export class ConversationRepo {
  constructor(
    private readonly db: Db,
    private readonly now: () => number,
  ) {}

  record(c: {
    runtime: string;
    id: string;
    seat?: string | null;
    home?: string | null;
    cwd?: string | null;
    transcriptPath?: string | null;
    host?: string;
  }): void {
    const t = this.now();
    this.db
      .prepare(`INSERT INTO conversations (runtime, id, seat, home, cwd, transcript_path, first_seen_at, last_seen_at, host) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)
      ON CONFLICT(runtime, id) DO UPDATE SET seat = COALESCE(excluded.seat, seat), home = COALESCE(excluded.home, home), cwd = COALESCE(excluded.cwd, cwd),
        transcript_path = COALESCE(excluded.transcript_path, transcript_path), last_seen_at = excluded.last_seen_at, host = excluded.host`)
      .run(
        c.runtime,
        c.id,
        c.seat ?? null,
        c.home ?? null,
        c.cwd ?? null,
        c.transcriptPath ?? null,
        t,
        t,
        c.host ?? 'local',
      );
  }

  get(runtime: string, id: string): ConversationRecord | undefined {
    return this.db
      .prepare<[string, string], ConversationRecord>(
        'SELECT runtime, id, seat, home, cwd, transcript_path AS transcriptPath FROM conversations WHERE runtime = ? AND id = ?',
      )
      .get(runtime, id);
  }
}
