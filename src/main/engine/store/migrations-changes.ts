import type { Migration } from './migration';

/** Worktrees and the merge gate: version 50, far from the numbers other domains take next. */
export const CHANGES_MIGRATIONS: readonly Migration[] = [
  {
    version: 50,
    name: "a seat's worktree and its rig's checks",
    sql: `
      -- Where the seat's worktree is (repository, folder, branch, base), fixed when the rig comes up,
      -- so a restart, a restore or another engine finds the same one; NULL: the seat runs in its cwd.
      ALTER TABLE seats ADD COLUMN worktree_json TEXT;
      -- The merge gate's command (an argv) from the pod's or the rig's checks; NULL: none.
      ALTER TABLE seats ADD COLUMN checks_json TEXT;
    `,
  },
];
