import type { z } from 'zod';
import { type Method, REQUESTS, type RequestOf, type ResultOf } from '../../../shared/contract';
import { fail, type Result } from '../../../shared/errors';
import type { Engine } from '../engine';
import { ACTIVITY_HANDLERS } from './activity';
import { APP_HANDLERS } from './app';
import { CHANGES_HANDLERS } from './changes';
import { DEVICES_HANDLERS } from './devices';
import { ENGINE_HANDLERS } from './engine';
import { HOSTS_HANDLERS } from './hosts';
import { RESTORE_HANDLERS } from './restore';
import { USAGE_HANDLERS } from './usage';
import { VIEW_HANDLERS, WORKSPACE_HANDLERS } from './workspace';

/** The contract's request schemas, indexed so that a generic method name keeps its own params' type. */
const SCHEMAS: { [M in Method]: z.ZodType<RequestOf<M>> } = REQUESTS;
type HandlerMap = { [M in Method]: (engine: Engine, params: RequestOf<M>) => Promise<ResultOf<M>> };
const HANDLERS: HandlerMap = {
  ...ENGINE_HANDLERS,
  ...RESTORE_HANDLERS,
  ...ACTIVITY_HANDLERS,
  ...APP_HANDLERS,
  ...HOSTS_HANDLERS,
  ...WORKSPACE_HANDLERS,
  ...VIEW_HANDLERS,
  ...USAGE_HANDLERS,
  ...CHANGES_HANDLERS,
  ...DEVICES_HANDLERS,
};

export function isMethod(method: string): method is Method {
  return Object.hasOwn(REQUESTS, method);
}

/** The first problem of a request that does not fit its schema, as one line. */
export function badParams(method: string, error: z.ZodError): string {
  const issue = error.issues[0];
  return `bad parameters for ${method}: ${issue ? `${issue.path.join('.') || '(root)'}: ${issue.message}` : 'invalid'}`;
}

/**
 * The engine's request surface: every transport (in-process CLI, engine socket, Electron IPC,
 * the browser's WebSocket) calls it, and the params are validated against the contract before
 * any engine code runs. Typed by the method name: its params and its answer come from the contract.
 */
export async function dispatch<M extends Method>(engine: Engine, method: M, params: unknown): Promise<ResultOf<M>> {
  const parsed = SCHEMAS[method].safeParse(params ?? {});
  if (!parsed.success) return fail('BAD_USAGE', badParams(method, parsed.error));
  try {
    return await HANDLERS[method](engine, parsed.data);
  } catch (e) {
    return fail('INTERNAL', `engine error in ${method}: ${(e as Error).message}`, {
      evidence: { stack: (e as Error).stack?.split('\n').slice(0, 6) },
    });
  }
}

/** A request off the wire, whose method is any string until it is known. */
export function dispatchWire(engine: Engine, method: string, params: unknown): Promise<Result> {
  if (!isMethod(method))
    return Promise.resolve(fail('BAD_USAGE', `unknown method ${JSON.stringify(method).slice(0, 80)}`));
  return dispatch(engine, method, params);
}
