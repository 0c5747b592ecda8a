import type { Migration } from './migration';

/** Paired devices (the window beyond this machine, `rigdesk serve --listen`): version 70. */
export const DEVICES_MIGRATIONS: readonly Migration[] = [
  {
    version: 70,
    name: 'paired devices and their one-time pairing codes',
    sql: `
      -- Only hashes are kept: a copy of the store gives no one a code or a device's token.
      CREATE TABLE device_pairings (
        code_hash  TEXT PRIMARY KEY,
        name       TEXT,
        created_at INTEGER NOT NULL,
        expires_at INTEGER NOT NULL,
        used_at    INTEGER,
        device_id  TEXT
      );
      CREATE TABLE devices (
        id           TEXT PRIMARY KEY,
        name         TEXT NOT NULL,
        token_hash   TEXT NOT NULL UNIQUE,
        paired_at    INTEGER NOT NULL,
        paired_from  TEXT,
        last_seen_at INTEGER,
        last_address TEXT,
        revoked_at   INTEGER
      );
    `,
  },
];
