import { z } from 'zod';
import type { Result } from '../errors';
import { ACTIVITY_ANSWERS, ACTIVITY_REQUESTS } from './activity';
import { CHANGES_ANSWERS, CHANGES_REQUESTS } from './changes';
import { APP_ANSWERS, APP_REQUESTS, WINDOW_ANSWERS, WINDOW_REQUESTS } from './app';
import { DEVICES_ANSWERS, DEVICES_REQUESTS } from './devices';
import { ENGINE_ANSWERS, ENGINE_REQUESTS } from './engine';
import { HOSTS_ANSWERS, HOSTS_REQUESTS } from './hosts';
import { RESTORE_ANSWERS, RESTORE_REQUESTS } from './restore';
import { USAGE_ANSWERS, USAGE_REQUESTS } from './usage';
import { VIEW_ANSWERS, VIEW_REQUESTS, WORKSPACE_ANSWERS, WORKSPACE_REQUESTS } from './workspace';

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
  ...WORKSPACE_REQUESTS,
  ...VIEW_REQUESTS,
  ...USAGE_REQUESTS,
  ...CHANGES_REQUESTS,
  ...DEVICES_REQUESTS,
} as const;

export type Method = keyof typeof REQUESTS;
export const METHODS = Object.keys(REQUESTS) as Method[];
/** A request as the engine's handler gets it (after the schema's defaults and trims). */
export type RequestOf<M extends Method> = z.output<(typeof REQUESTS)[M]>;

/** What each engine request answers beside `ok: true`, declared beside its request. */
export const ANSWERS = {
  ...ENGINE_ANSWERS,
  ...RESTORE_ANSWERS,
  ...ACTIVITY_ANSWERS,
  ...APP_ANSWERS,
  ...HOSTS_ANSWERS,
  ...WORKSPACE_ANSWERS,
  ...VIEW_ANSWERS,
  ...USAGE_ANSWERS,
  ...CHANGES_ANSWERS,
  ...DEVICES_ANSWERS,
} as const satisfies { readonly [M in Method]: z.ZodType<object> };
export type AnswerOf<M extends Method> = z.output<(typeof ANSWERS)[M]>;
export type ResultOf<M extends Method> = Result<AnswerOf<M>>;

/** Everything a window connection may ask: the engine's requests and its own terminals'. */
export const CLIENT_REQUESTS = { ...REQUESTS, ...WINDOW_REQUESTS } as const;
export const CLIENT_ANSWERS = { ...ANSWERS, ...WINDOW_ANSWERS } as const;
export type ClientMethod = keyof typeof CLIENT_REQUESTS;
/** A request as a client writes it (before defaults): what `Transport.request` takes. */
export type ClientParams<M extends ClientMethod> = z.input<(typeof CLIENT_REQUESTS)[M]>;
export type ClientAnswer<M extends ClientMethod> = z.output<(typeof CLIENT_ANSWERS)[M]>;
export type ClientResult<M extends ClientMethod> = Result<ClientAnswer<M>>;
/** One typed call: the method name picks its params and its answer, so a typo does not compile. */
export type Call = <M extends ClientMethod>(method: M, params: ClientParams<M>) => Promise<ClientResult<M>>;
/** The engine's part of `Call`, for clients with no terminals (the CLI, the engine socket). */
export type EngineCall = <M extends Method>(method: M, params: z.input<(typeof REQUESTS)[M]>) => Promise<ResultOf<M>>;

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
export * from './restore-results';
export * from './restore-records';
export * from './activity';
export * from './hosts';
export * from './app';
export * from './workspace';
export * from './usage';
export * from './changes';
export * from './devices';
