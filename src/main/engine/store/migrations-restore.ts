import type { Migration } from './migration';

/** Snapshots, restore and decisions: version 3. */
export const RESTORE_MIGRATIONS: readonly Migration[] = [
  {
    version: 3,
    name: 'snapshots, snapshot seats, restore runs, decisions',
    sql: `
      -- A snapshot: what a rig's seats were, durable enough to bring them back after a reboot.
      CREATE TABLE snapshots (
        id        INTEGER PRIMARY KEY AUTOINCREMENT,
        rig       TEXT NOT NULL,
        reason    TEXT NOT NULL,                   -- manual | before_down | timer | restore
        taken_at  INTEGER NOT NULL
      );
      CREATE INDEX snapshots_by_rig ON snapshots(rig, id);
      CREATE TABLE snapshot_seats (
        snapshot_id        INTEGER NOT NULL REFERENCES snapshots(id),
        seat               TEXT NOT NULL,
        runtime            TEXT NOT NULL,
        cwd                TEXT NOT NULL,
        restore_policy     TEXT NOT NULL,
        conversation_id    TEXT,
        evidence_json      TEXT NOT NULL DEFAULT '{}',  -- transcript path, live owner, where the id came from
        stopped_on_purpose INTEGER NOT NULL,
        state              TEXT NOT NULL,              -- running | stopped | gone | unknown at snapshot time
        PRIMARY KEY (snapshot_id, seat)
      );
      -- One run of restore: a run left 'running' by a dead holder is visible to reconcile.
      CREATE TABLE restore_runs (
        id           INTEGER PRIMARY KEY AUTOINCREMENT,
        rig          TEXT NOT NULL,
        snapshot_id  INTEGER NOT NULL,
        holder_pid   INTEGER NOT NULL,
        state        TEXT NOT NULL,                  -- running | finished | interrupted
        outcome      TEXT,                           -- fully_restored | partially_restored | failed
        result_json  TEXT,
        started_at   INTEGER NOT NULL,
        finished_at  INTEGER
      );
      -- Something only a person may settle (docs/architecture.md, "Decision"). At most one open per seat.
      CREATE TABLE decisions (
        id              INTEGER PRIMARY KEY AUTOINCREMENT,
        seat            TEXT NOT NULL,
        rig             TEXT NOT NULL,
        kind            TEXT NOT NULL,               -- restore
        reason          TEXT NOT NULL,
        runtime         TEXT NOT NULL,
        conversation_id TEXT,
        snapshot_id     INTEGER,
        choices_json    TEXT NOT NULL,
        evidence_json   TEXT NOT NULL DEFAULT '{}',
        state           TEXT NOT NULL,               -- open | answered
        answer          TEXT,
        answer_reason   TEXT,
        outcome_json    TEXT,
        created_at      INTEGER NOT NULL,
        updated_at      INTEGER NOT NULL,
        answered_at     INTEGER
      );
      CREATE UNIQUE INDEX decisions_one_open ON decisions(seat) WHERE state = 'open';
    `,
  },
];
