/** Activity, safe delivery and the queue (issue 4). */
export const ACTIVITY_REQUESTS = {} as const;
