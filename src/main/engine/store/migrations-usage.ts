import type { Migration } from './migration';

/** Usage samples: version 60, far from the numbers other domains take next. */
export const USAGE_MIGRATIONS: readonly Migration[] = [
  {
    version: 60,
    name: "each seat's usage over time",
    sql: `
      -- A conversation's running totals as its runtime's records gave them, at most one row a minute
      -- (at: the minute's start, ms epoch). Keyed by conversation, so a seat's restart on the same
      -- conversation goes on with its series and a fresh start or a fork is a series of its own. No
      -- reference to seats: the history outlives a rig taken down.
      CREATE TABLE usage_samples (
        seat            TEXT NOT NULL,
        rig             TEXT NOT NULL,
        pod             TEXT NOT NULL,
        runtime         TEXT NOT NULL,
        conversation_id TEXT NOT NULL,
        at              INTEGER NOT NULL,
        model           TEXT,
        tokens_in       INTEGER NOT NULL,
        tokens_out      INTEGER NOT NULL,
        context_tokens  INTEGER,
        context_window  INTEGER,
        cost_usd        REAL,              -- absent where a price is unknown
        PRIMARY KEY (seat, conversation_id, at)
      );
      CREATE INDEX usage_samples_by_rig ON usage_samples(rig, at);
      CREATE INDEX usage_samples_by_at ON usage_samples(at);
    `,
  },
];
