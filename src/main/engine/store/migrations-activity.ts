import type { Migration } from './migrations';

/** Activity, delivery leases and the queue (issue 4): version 2. */
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
];
