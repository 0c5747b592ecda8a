/** A running seat's screen, and the command that attaches a terminal to it. */
import { fail, type Result } from '../../../shared/errors';
import type { Engine } from '../engine';
import { hostOfServer } from '../tmux/identity';
import { attachArgv } from '../seats/attach';

export async function captureSeat(
  engine: Engine,
  ref: unknown,
  lines = 50,
): Promise<Result<{ seat: string; paneId: string; text: string }>> {
  const found = engine.store.rigs.find(ref);
  if (!found.ok) return found;
  const live = engine.store.sessions.live(found.seat.seat);
  if (!live) return fail('SEAT_NOT_RUNNING', `${found.seat.seat} is not running`);
  const probe = await engine.client(live.server).probeSession(live.sessionId);
  if (probe.state !== 'present' || probe.serverPid !== live.serverPid || probe.sessionCreated !== live.sessionCreated) {
    return fail('SEAT_NOT_RUNNING', `${found.seat.seat}'s session ${live.sessionId} is gone`);
  }
  const cap = await engine.client(live.server).capture(live.paneId, lines);
  if (!cap.ok) return cap;
  return { ok: true, seat: found.seat.seat, paneId: live.paneId, text: cap.text };
}

export async function attachCommand(
  engine: Engine,
  ref: unknown,
): Promise<Result<{ seat: string; argv: string[]; server: string; sessionId: string; host: string }>> {
  const found = engine.store.rigs.find(ref);
  if (!found.ok) return found;
  const live = engine.store.sessions.live(found.seat.seat);
  if (!live)
    return fail('SEAT_NOT_RUNNING', `${found.seat.seat} is not running`, {
      hint: `Start it with rigdesk launch ${found.seat.seat}.`,
    });
  return {
    ok: true,
    seat: found.seat.seat,
    argv: attachArgv(engine.ports, live.sessionId, live.server),
    server: live.server,
    sessionId: live.sessionId,
    host: hostOfServer(live.server),
  };
}
