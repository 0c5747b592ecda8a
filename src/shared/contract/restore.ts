/** Snapshots, restore, decisions and the seat lifecycle (issue 5). */
export const RESTORE_REQUESTS = {} as const;
