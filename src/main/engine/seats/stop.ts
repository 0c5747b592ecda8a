import type { LeftRunning, StoppedSeat } from '../../../shared/contract';
import { fail, type Result } from '../../../shared/errors';
import type { Ports } from '../ports';
import { runtimeById } from '../runtimes';
import { untilTakenUp } from './taking-up';
import type { StopPorts } from './ports';

/**
 * A runtime's background service in the seat's home (Codex's daemon) is not the seat's: seats run
 * without it. It stays, and the stop says so rather than leaving it unmentioned.
 */
async function leftInHome(
  ports: Pick<Ports, 'roster' | 'seatHome'>,
  seat: { seat: string; runtime: string; env: Record<string, string>; host: string },
): Promise<LeftRunning[]> {
  const adapter = runtimeById(seat.runtime);
  const home = seat.host === 'local' && adapter?.serviceRole ? ports.seatHome(seat) : undefined;
  if (!home) return [];
  // The stop is done; a roster that cannot be read leaves this report empty, never the stop failed.
  const roster = await ports.roster().catch(() => undefined);
  if (!roster) return [];
  return roster.agents
    .filter((a) => a.service === 'daemon' && a.runtime === seat.runtime && a.home === home && !a.host)
    .map(
      (a): LeftRunning => ({
        what: 'daemon',
        runtime: a.runtime,
        pid: a.pid,
        home,
        conversations: roster.claims
          .filter((c) => c.pid === a.pid && c.source === 'writer_lock')
          .map((c) => c.conversationId),
        why: `not ${seat.seat}'s (its seats run without the daemon): it serves the other ${adapter!.displayName} sessions of this home, so Rigdesk leaves it running`,
      }),
    );
}

/**
 * Ends a seat's occupant by exact cleanup (docs/architecture.md invariant 4) and records the stop as
 * intentional. "not removed" is never reported as success.
 */
export async function stopSeat(ports: StopPorts, ref: unknown): Promise<Result<{ stopped: StoppedSeat }>> {
  const found = ports.store.rigs.find(ref);
  if (!found.ok) return found;
  const { seat } = found;
  const { store } = ports;
  const live = store.sessions.live(seat.seat);
  if (!live) {
    // An exited or failed seat becomes stopped: the timeline and its state's age say so. A second
    // stop of a stopped seat changes nothing and records nothing.
    if (!seat.stoppedOnPurpose) {
      store.db
        .transaction(() => {
          store.rigs.setStoppedOnPurpose(seat.seat, true);
          store.events.append('seat.stop', { rig: seat.rig, seat: seat.seat }, { outcome: 'not_running' });
        })
        .immediate();
    }
    return { ok: true, stopped: { seat: seat.seat, outcome: 'not_running' } };
  }
  const taken = await untilTakenUp(ports, seat, live.conversationId ?? seat.conversationId);
  if (!taken.ok) return taken;
  const out = await ports.client(live.server).killByIdentity(live);
  const where = { rig: seat.rig, seat: seat.seat };
  const ident = {
    server: live.server,
    serverPid: live.serverPid,
    sessionId: live.sessionId,
    sessionCreated: live.sessionCreated,
    paneId: live.paneId,
  };
  if (out.outcome === 'not_removed') {
    store.events.append('seat.kill_not_removed', where, { ...ident, why: out.why });
    return fail('NOT_REMOVED', `${seat.seat}: session ${live.sessionId} was not removed (${out.why})`, {
      hint: 'Nothing was assumed: check the tmux server, then run rigdesk stop again.',
      evidence: { ...ident, why: out.why },
    });
  }
  store.db
    .transaction(() => {
      store.sessions.end(live.id, out.outcome === 'removed' ? 'stopped' : 'gone');
      store.rigs.setStoppedOnPurpose(seat.seat, true);
      if (out.outcome === 'removed') store.events.append('seat.kill', where, ident);
      else store.events.append('seat.already_gone', where, { ...ident, why: out.why });
      store.events.append('seat.stop', where, { outcome: out.outcome });
    })
    .immediate();
  const left = await leftInHome(ports, seat);
  const leftRunning = left.length ? { leftRunning: left } : {};
  const stopped: StoppedSeat =
    out.outcome === 'removed'
      ? { seat: seat.seat, outcome: 'removed', sessionId: live.sessionId, ...leftRunning }
      : { seat: seat.seat, outcome: 'already_gone', sessionId: live.sessionId, why: out.why, ...leftRunning };
  return { ok: true, stopped };
}
