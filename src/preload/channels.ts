// IPC channel names, shared by the preload and the main process. Kept apart from the zod contract:
// a sandboxed preload can require only `electron`, so it must not pull the contract module in.
export const IPC = {
  request: 'rigdesk:request',
  push: 'rigdesk:push',
  frameIn: 'rigdesk:frame-in',
  frameOut: 'rigdesk:frame-out',
} as const;
