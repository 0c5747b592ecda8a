import type { Migration } from './migration';

/** Hosts over SSH: version 10, far from the numbers other domains take next. */
export const HOSTS_MIGRATIONS: readonly Migration[] = [
  {
    version: 10,
    name: 'hosts, and the host each seat runs on',
    sql: `
      -- Known hosts: from rig specs (rigdesk up) and rigdesk hosts add. The ssh target is JSON so a
      -- new ssh option never needs a migration.
      CREATE TABLE hosts (
        name       TEXT PRIMARY KEY,
        spec_json  TEXT NOT NULL,
        source     TEXT NOT NULL,   -- 'spec:<rig>' or 'cli'
        created_at INTEGER NOT NULL,
        updated_at INTEGER NOT NULL
      );
      -- Existing seats ran here; a row's tmux server key says the same (no H: prefix).
      ALTER TABLE seats ADD COLUMN host TEXT NOT NULL DEFAULT 'local';
      -- A conversation lives on a host's disk. Its key stays (runtime, id): ids are UUIDs, and the
      -- guard already reads the owning host; the column says which host that is.
      ALTER TABLE conversations ADD COLUMN host TEXT NOT NULL DEFAULT 'local';
    `,
  },
];
