/** The window's own requests and pushed events (issue 3). */
export const APP_REQUESTS = {} as const;
