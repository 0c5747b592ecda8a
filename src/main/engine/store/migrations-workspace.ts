import type { Migration } from './migration';

/** The window's reads of the log: version 20, far from the numbers other domains take next. */
export const WORKSPACE_MIGRATIONS: readonly Migration[] = [
  {
    version: 20,
    name: 'events by rig, for the rig timeline',
    sql: `
      -- The rig timeline pages newest first by seq within a rig (keyset: seq < the page's last).
      CREATE INDEX events_by_rig ON events(rig, seq);
    `,
  },
];
