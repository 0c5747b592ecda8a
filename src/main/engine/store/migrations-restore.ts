import type { Migration } from './migrations';

/** Snapshots, restore and decisions (issue 5): version 3. */
export const RESTORE_MIGRATIONS: readonly Migration[] = [];
