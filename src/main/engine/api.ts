import { fail, type Result } from '../../shared/errors';
import { REQUESTS, type Method } from '../../shared/contract';
import { sendToSeat } from './delivery/send';
import type { Engine } from './engine';
import { launchSeat } from './services/launch';
import { attachCommand, captureSeat, doctor } from './services/misc';
import { ps } from './services/ps';
import { downRig, stopSeat } from './services/stop';
import { upRig } from './services/up';

/**
 * The engine's request surface: every transport (in-process CLI, engine socket, later IPC and
 * WebSocket) calls `dispatch`, which validates the params against the contract first.
 */
export async function dispatch(engine: Engine, method: string, params: unknown): Promise<Result<Record<string, unknown>>> {
  if (!Object.prototype.hasOwnProperty.call(REQUESTS, method)) return fail('BAD_USAGE', `unknown method ${JSON.stringify(method).slice(0, 80)}`);
  const schema = REQUESTS[method as Method];
  const parsed = schema.safeParse(params ?? {});
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    return fail('BAD_USAGE', `bad parameters for ${method}: ${issue ? `${issue.path.join('.') || '(root)'}: ${issue.message}` : 'invalid'}`);
  }
  const p = parsed.data as Record<string, unknown>;
  try {
    switch (method as Method) {
      case 'up': return await upRig(engine, p.spec);
      case 'ps': return await ps(engine, { rig: p.rig as string | undefined, all: p.all as boolean | undefined });
      case 'launch': return await launchSeat(engine, p.seat, { fresh: p.fresh as boolean | undefined });
      case 'stop': return await stopSeat(engine, p.seat);
      case 'down': return await downRig(engine, p.rig);
      case 'send': return await sendToSeat(engine, p.seat, p.text);
      case 'capture': return await captureSeat(engine, p.seat, p.lines as number | undefined);
      case 'attach': return await attachCommand(engine, p.seat);
      case 'doctor': return await doctor(engine);
      case 'events': return { ok: true, events: engine.store.events.list(p as never) };
    }
  } catch (e) {
    return fail('INTERNAL', `engine error in ${method}: ${(e as Error).message}`, { evidence: { stack: (e as Error).stack?.split('\n').slice(0, 6) } });
  }
}
