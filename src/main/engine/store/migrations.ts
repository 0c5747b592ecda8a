import { ACTIVITY_MIGRATIONS } from './migrations-activity';
import { RESTORE_MIGRATIONS } from './migrations-restore';
import { HOSTS_MIGRATIONS } from './migrations-hosts';
import { USAGE_MIGRATIONS } from './migrations-usage';
import { WORKSPACE_MIGRATIONS } from './migrations-workspace';
import { CHANGES_MIGRATIONS } from './migrations-changes';
import { DEVICES_MIGRATIONS } from './migrations-devices';
import type { Migration } from './migration';

export type { Migration };

/** Version 1: the engine core. Later domains add theirs in their own files (see the end). */
const CORE: readonly Migration[] = [
  {
    version: 1,
    name: 'rigs, seats, sessions, conversations, reservations, events',
    sql: `
      CREATE TABLE rigs (
        name        TEXT PRIMARY KEY,
        spec_path   TEXT NOT NULL,
        spec_json   TEXT NOT NULL,
        created_at  INTEGER NOT NULL,
        updated_at  INTEGER NOT NULL
      );
      CREATE TABLE pods (
        rig TEXT NOT NULL REFERENCES rigs(name) ON DELETE CASCADE,
        id  TEXT NOT NULL,
        PRIMARY KEY (rig, id)
      );
      CREATE TABLE seats (
        seat            TEXT PRIMARY KEY,           -- member@rig
        rig             TEXT NOT NULL REFERENCES rigs(name) ON DELETE CASCADE,
        pod             TEXT NOT NULL,
        member          TEXT NOT NULL,
        runtime         TEXT NOT NULL,
        cwd             TEXT NOT NULL,
        command         TEXT,
        args_json       TEXT NOT NULL DEFAULT '[]',
        env_json        TEXT NOT NULL DEFAULT '{}',
        restore_policy  TEXT NOT NULL,
        conversation_id TEXT,                       -- the seat's last known conversation
        stopped_on_purpose INTEGER NOT NULL DEFAULT 0,
        created_at      INTEGER NOT NULL,
        updated_at      INTEGER NOT NULL
      );
      CREATE TABLE edges (
        rig  TEXT NOT NULL REFERENCES rigs(name) ON DELETE CASCADE,
        src  TEXT NOT NULL,
        dst  TEXT NOT NULL,
        kind TEXT NOT NULL,
        PRIMARY KEY (rig, src, dst, kind)
      );
      -- One occupant run of a seat: its immutable tmux identity and process identity.
      CREATE TABLE sessions (
        id              INTEGER PRIMARY KEY AUTOINCREMENT,
        seat            TEXT NOT NULL,
        runtime         TEXT NOT NULL,
        tmux_socket     TEXT NOT NULL,              -- '-L name' or '-S path' form, see tmux/server.ts
        server_pid      INTEGER NOT NULL,
        session_id      TEXT NOT NULL,              -- $N
        session_created INTEGER NOT NULL,
        session_name    TEXT NOT NULL,
        pane_id         TEXT NOT NULL,              -- %N
        pane_pid        INTEGER NOT NULL,
        pane_pid_start  TEXT,
        conversation_id TEXT,
        state           TEXT NOT NULL,              -- live | ended
        started_at      INTEGER NOT NULL,
        ended_at        INTEGER,
        end_reason      TEXT
      );
      CREATE INDEX sessions_by_seat ON sessions(seat, state);
      CREATE TABLE conversations (
        runtime         TEXT NOT NULL,
        id              TEXT NOT NULL,
        seat            TEXT,
        home            TEXT,
        cwd             TEXT,
        transcript_path TEXT,
        first_seen_at   INTEGER NOT NULL,
        last_seen_at    INTEGER NOT NULL,
        PRIMARY KEY (runtime, id)
      );
      -- The create fence (docs/architecture.md invariant 3).
      CREATE TABLE reservations (
        id            INTEGER PRIMARY KEY AUTOINCREMENT,
        seat          TEXT NOT NULL,
        phase         TEXT NOT NULL,                -- reserved | helper_invoked | created | released | abandoned
        attempt       TEXT NOT NULL,                -- unique tag set on the tmux session it creates
        holder_pid    INTEGER NOT NULL,
        holder_start  TEXT,
        tmux_socket   TEXT NOT NULL,
        session_name  TEXT NOT NULL,
        identity_json TEXT,
        plan_json     TEXT,                         -- what the holder meant to launch (mode, conversation)
        outcome       TEXT,
        created_at    INTEGER NOT NULL,
        updated_at    INTEGER NOT NULL
      );
      CREATE UNIQUE INDEX reservations_one_active ON reservations(seat)
        WHERE phase IN ('reserved', 'helper_invoked', 'created');
      -- Append-only event log: every launch, refusal, kill and identity bind is a row.
      CREATE TABLE events (
        seq       INTEGER PRIMARY KEY AUTOINCREMENT,
        at        INTEGER NOT NULL,
        kind      TEXT NOT NULL,
        rig       TEXT,
        seat      TEXT,
        data_json TEXT NOT NULL DEFAULT '{}'
      );
      CREATE INDEX events_by_seat ON events(seat, seq);
      CREATE TRIGGER events_append_only_update BEFORE UPDATE ON events
        BEGIN SELECT RAISE(ABORT, 'events are append-only'); END;
      CREATE TRIGGER events_append_only_delete BEFORE DELETE ON events
        BEGIN SELECT RAISE(ABORT, 'events are append-only'); END;
    `,
  },
  {
    version: 30,
    name: "each seat's place in its spec",
    sql: `
      -- Lists show a rig's seats in the spec's order (a1, a2, ..., a10), not sorted by name. A seat
      -- made later (a fork) has none and comes after the spec's, in the order it was made.
      ALTER TABLE seats ADD COLUMN position INTEGER;
    `,
  },
];

/**
 * Every migration, in version order. Each domain keeps its own list so that work on one never
 * edits another's: activity and delivery take version 2, restore takes version 3, and so on.
 */
export const MIGRATIONS: readonly Migration[] = [
  ...CORE,
  ...ACTIVITY_MIGRATIONS,
  ...RESTORE_MIGRATIONS,
  ...HOSTS_MIGRATIONS,
  ...WORKSPACE_MIGRATIONS,
  ...USAGE_MIGRATIONS,
  ...CHANGES_MIGRATIONS,
  ...DEVICES_MIGRATIONS,
].sort((a, b) => a.version - b.version);
