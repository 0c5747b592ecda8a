import type { Migration } from './migrations';

/** Activity, delivery leases and the queue (issue 4): version 2. */
export const ACTIVITY_MIGRATIONS: readonly Migration[] = [];
