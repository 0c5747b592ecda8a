import { z } from 'zod';
import { ACTIVITY_REQUESTS } from './activity';
import { APP_REQUESTS } from './app';
import { ENGINE_REQUESTS } from './engine';
import { RESTORE_REQUESTS } from './restore';
import { HOSTS_REQUESTS } from './hosts';

/**
 * The one contract between the engine and its clients (CLI socket, Electron IPC, the browser's
 * WebSocket). Each domain declares its requests in its own file; they meet here. Every request is
 * validated against these schemas before an engine method runs, and both sides take their types
 * from here, so nothing is mirrored by hand.
 */
export const REQUESTS = {
  ...ENGINE_REQUESTS,
  ...RESTORE_REQUESTS,
  ...ACTIVITY_REQUESTS,
  ...APP_REQUESTS,
  ...HOSTS_REQUESTS,
} as const;

export type Method = keyof typeof REQUESTS;
export const METHODS = Object.keys(REQUESTS) as Method[];
export type RequestOf<M extends Method> = z.output<(typeof REQUESTS)[M]>;

/** Wire frames of the engine socket: one JSON object per line. */
export const rpcRequest = z.strictObject({
  id: z.number().int(),
  token: z.string().max(200),
  method: z.string().max(64),
  params: z.unknown(),
});
export type RpcRequest = z.output<typeof rpcRequest>;

export * from './engine';
export * from './restore';
export * from './activity';
export * from './hosts';
export * from './app';
