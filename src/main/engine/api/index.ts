import { fail, type Result } from '../../../shared/errors';
import { REQUESTS, type Method } from '../../../shared/contract';
import type { Engine } from '../engine';
import { ACTIVITY_HANDLERS } from './activity';
import { APP_HANDLERS } from './app';
import { ENGINE_HANDLERS } from './engine';
import { RESTORE_HANDLERS } from './restore';
import { HOSTS_HANDLERS } from './hosts';

const HANDLERS = {
  ...ENGINE_HANDLERS,
  ...RESTORE_HANDLERS,
  ...ACTIVITY_HANDLERS,
  ...APP_HANDLERS,
  ...HOSTS_HANDLERS,
} as Record<Method, (engine: Engine, params: unknown) => Promise<Result<Record<string, unknown>>>>;

/**
 * The engine's request surface: every transport (in-process CLI, engine socket, Electron IPC,
 * the browser's WebSocket) calls `dispatch`, which validates the params against the contract
 * before any engine code runs.
 */
export async function dispatch(
  engine: Engine,
  method: string,
  params: unknown,
): Promise<Result<Record<string, unknown>>> {
  if (!Object.prototype.hasOwnProperty.call(REQUESTS, method))
    return fail('BAD_USAGE', `unknown method ${JSON.stringify(method).slice(0, 80)}`);
  const schema = REQUESTS[method as Method];
  const parsed = schema.safeParse(params ?? {});
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    return fail(
      'BAD_USAGE',
      `bad parameters for ${method}: ${issue ? `${issue.path.join('.') || '(root)'}: ${issue.message}` : 'invalid'}`,
    );
  }
  try {
    return await HANDLERS[method as Method](engine, parsed.data);
  } catch (e) {
    return fail('INTERNAL', `engine error in ${method}: ${(e as Error).message}`, {
      evidence: { stack: (e as Error).stack?.split('\n').slice(0, 6) },
    });
  }
}
