import type { Migration } from './migration';

/** Activity, delivery leases and the queue: versions 2 and 5 (3 and 4 are restore's). */
export const ACTIVITY_MIGRATIONS: readonly Migration[] = [
  {
    version: 2,
    name: 'delivery tickets, queue items, transitions and wakes',
    sql: `
      -- Per-seat turn order for sends: the lowest live ticket types; the rest wait.
      CREATE TABLE delivery_tickets (
        id           INTEGER PRIMARY KEY AUTOINCREMENT,
        seat         TEXT NOT NULL,
        holder_pid   INTEGER NOT NULL,
        holder_start TEXT,
        created_at   INTEGER NOT NULL
      );
      CREATE INDEX delivery_tickets_by_seat ON delivery_tickets(seat, id);
      CREATE TABLE queue_items (
        id              INTEGER PRIMARY KEY AUTOINCREMENT,
        seat            TEXT NOT NULL,
        body            TEXT NOT NULL,
        state           TEXT NOT NULL,        -- open | claimed | done | blocked
        created_by      TEXT,
        claimed_by      TEXT,
        note            TEXT,
        for_next_resume INTEGER NOT NULL DEFAULT 0,
        created_at      INTEGER NOT NULL,
        updated_at      INTEGER NOT NULL
      );
      CREATE INDEX queue_items_by_seat ON queue_items(seat, state, id);
      CREATE TABLE queue_transitions (
        id        INTEGER PRIMARY KEY AUTOINCREMENT,
        item      INTEGER NOT NULL REFERENCES queue_items(id),
        from_state TEXT,
        to_state  TEXT NOT NULL,
        actor     TEXT,
        note      TEXT,
        at        INTEGER NOT NULL
      );
      CREATE TRIGGER queue_transitions_append_only_update BEFORE UPDATE ON queue_transitions
        BEGIN SELECT RAISE(ABORT, 'queue transitions are append-only'); END;
      CREATE TRIGGER queue_transitions_append_only_delete BEFORE DELETE ON queue_transitions
        BEGIN SELECT RAISE(ABORT, 'queue transitions are append-only'); END;
      -- One wake per occupant per set of unchanged items: the unique key is the exactly-once.
      CREATE TABLE queue_wakes (
        id          INTEGER PRIMARY KEY AUTOINCREMENT,
        seat        TEXT NOT NULL,
        session_row INTEGER NOT NULL,
        digest      TEXT NOT NULL,
        token       TEXT NOT NULL,
        state       TEXT NOT NULL,            -- pending | sent | parked
        attempts    INTEGER NOT NULL DEFAULT 0,
        next_at     INTEGER NOT NULL,
        last_result TEXT,
        created_at  INTEGER NOT NULL,
        updated_at  INTEGER NOT NULL,
        UNIQUE (seat, session_row, digest)
      );
    `,
  },
  {
    version: 5,
    name: 'queue moves name their verb and seats; wake rows name the process typing them',
    sql: `
      -- ADD COLUMN is DDL, not UPDATE: the append-only triggers still guard every row.
      ALTER TABLE queue_transitions ADD COLUMN move TEXT;        -- create | claim | handoff | done | block
      ALTER TABLE queue_transitions ADD COLUMN from_seat TEXT;
      ALTER TABLE queue_transitions ADD COLUMN to_seat TEXT;
      CREATE INDEX queue_transitions_by_item ON queue_transitions(item, id);
      -- The waker that is typing a wake right now (pid + start time). A row left 'typing' by a dead
      -- holder may or may not have reached the pane: the next pass looks for its token on screen.
      ALTER TABLE queue_wakes ADD COLUMN holder_pid INTEGER;
      ALTER TABLE queue_wakes ADD COLUMN holder_start TEXT;
      ALTER TABLE queue_wakes ADD COLUMN items_json TEXT NOT NULL DEFAULT '[]';
      CREATE INDEX queue_wakes_by_seat ON queue_wakes(seat, state);
    `,
  },
];
