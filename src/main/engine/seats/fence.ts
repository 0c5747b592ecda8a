import type { LaunchedSeat } from '../../../shared/contract';
import { fail, type Failure, type Result } from '../../../shared/errors';
import { resolveStaleReservation } from '../custody/census';
import { sessionGone } from '../custody/gone';
import type { Ports } from '../ports';
import { atFault } from '../faults';
import type { LaunchContext, RuntimeAdapter } from '../runtimes';
import type { Roster } from '../roster/types';
import type { LaunchPlan, SeatRow } from '../store';
import type { SessionIdentity } from '../tmux/identity';
import { attachArgv } from './attach';
import { paneOf } from '../roster/lookup';
import type { LaunchPorts } from './ports';

/**
 * What every launch, local or on another host, does once its own checks are done: settle what an
 * earlier launch left, then create the seat's session behind the fence.
 */

/**
 * Chooses the agent's argv once the seat is known free to launch; custody checks belong here, on
 * the launch's roster (`roster()`: taken fresh at the first check that needs it).
 */
export type ArgvChooser = (input: {
  /** What a chooser may read: the store, a seat's home, this machine's files. */
  ports: Pick<Ports, 'io' | 'fs' | 'seatHome' | 'store'>;
  seat: SeatRow;
  adapter: RuntimeAdapter;
  ctx: LaunchContext;
  roster: LaunchRoster;
}) => Result<{ argv: string[]; plan: LaunchPlan }> | Promise<Result<{ argv: string[]; plan: LaunchPlan }>>;

/** The one roster of one launch: taken fresh the first time a check asks for it, then shared. */
export type LaunchRoster = () => Promise<Roster>;

/**
 * A launch's roster, taken only when a check needs one: settling what an earlier launch left (a
 * stale reservation's census, a live row's pane) or a custody decision (a resume, a fork). A fresh
 * launch of a seat with nothing to settle decides nothing from tmux or the process table before its
 * create, so it takes none; the fence and the create's own answer are what it rests on.
 */
export function launchRoster(ports: Pick<Ports, 'roster'>): LaunchRoster {
  let taken: Promise<Roster> | undefined;
  return () => (taken ??= ports.roster());
}

/**
 * Before a create: a reservation left by a launch that died is settled by census; a live row whose
 * session is gone becomes history; one whose session is there means the seat runs.
 */
export async function settleEarlier(
  ports: Pick<Ports, 'client' | 'proc' | 'store'>,
  seat: SeatRow,
  roster: LaunchRoster,
): Promise<Result<Record<never, never>>> {
  const on = seat.host === 'local' ? '' : ` on ${seat.host}`;
  const host = seat.host === 'local' ? {} : { host: seat.host };
  const stale = ports.store.reservations.active(seat.seat);
  if (stale) {
    const settled = await resolveStaleReservation(ports, stale, await roster());
    if (!settled.ok) return settled;
  }
  const live = ports.store.sessions.live(seat.seat);
  if (!live) return { ok: true };
  const seen = await roster();
  const running = () =>
    fail('SEAT_ALREADY_RUNNING', `${seat.seat} is already running in pane ${live.paneId}${on}`, {
      evidence: { paneId: live.paneId, sessionId: live.sessionId, ...host },
    });
  if (paneOf(seen, live)) return running();
  // Missing from the roster is not gone: another launch may have created it a moment ago.
  const state = await sessionGone(ports, live);
  if (state === 'present') return running();
  if (state === 'unknown')
    return fail('EVIDENCE_UNREADABLE', `cannot tell whether ${seat.seat}'s earlier session${on} still runs`, {
      evidence: { problems: seen.problems },
    });
  ports.store.sessions.end(live.id, 'gone');
  ports.store.events.append(
    'seat.already_gone',
    { rig: seat.rig, seat: seat.seat },
    { sessionId: live.sessionId, paneId: live.paneId, ...host, found: 'at launch' },
  );
  return { ok: true };
}

type ReservationInput = Parameters<Ports['store']['reservations']['reserve']>[0];

/** Takes the seat's reservation; a stale one is settled by a census of live sessions first. */
async function reserveSeat(
  ports: Pick<Ports, 'proc' | 'store'>,
  seat: SeatRow,
  input: ReservationInput,
  roster: LaunchRoster,
): Promise<Result<{ id: number }>> {
  const { store } = ports;
  const precondition = () => (store.sessions.live(seat.seat) ? 'running' : undefined);
  let taken = store.reservations.reserve(input, precondition);
  if (!taken.ok && 'existing' in taken) {
    const census = await resolveStaleReservation(ports, taken.existing, await roster());
    if (!census.ok) return census;
    taken = store.reservations.reserve(input, precondition);
  }
  if (taken.ok) return { ok: true, id: taken.row.id };
  if ('refused' in taken) return fail('SEAT_ALREADY_RUNNING', `${seat.seat} was launched by someone else a moment ago`);
  return launchInProgress(seat.seat, taken.existing);
}

/** In one transaction: the reservation created, the live session, its conversation, the bind event. */
async function bindCreated(
  ports: Pick<Ports, 'procNow' | 'seatHome' | 'store'>,
  seat: SeatRow,
  plan: LaunchPlan,
  reservation: number,
  attempt: string,
  id: SessionIdentity,
): Promise<void> {
  const { store } = ports;
  const pp = await ports.procNow(id.server, id.panePid);
  const panePidStart = pp && pp !== 'unknown' ? pp.startTime : null;
  store.db
    .transaction(() => {
      store.reservations.advance(reservation, 'helper_invoked', 'created', { identity: id });
      store.sessions.insertLive(seat.seat, plan.runtime, id, {
        panePidStart,
        conversationId: plan.conversationId ?? null,
      });
      if (plan.conversationId) {
        store.rigs.setConversation(seat.seat, plan.conversationId);
        store.conversations.record({
          runtime: plan.runtime,
          id: plan.conversationId,
          seat: seat.seat,
          home: ports.seatHome(seat) ?? null,
          cwd: seat.cwd,
          host: seat.host,
        });
      }
      store.rigs.setStoppedOnPurpose(seat.seat, false);
      store.events.append(
        'seat.identity_bound',
        { rig: seat.rig, seat: seat.seat },
        { ...id, attempt, conversationId: plan.conversationId ?? null },
      );
    })
    .immediate();
}

/** The create fence (docs/architecture.md invariant 3): reserved -> helper_invoked -> created -> released (or abandoned). */
export async function createBehindFence(
  ports: LaunchPorts,
  seat: SeatRow,
  plan: LaunchPlan,
  paneArgv: string[],
  roster: LaunchRoster,
  extraEnv: Record<string, string> = {},
): Promise<Result<{ launched: LaunchedSeat }>> {
  const { store } = ports;
  const faults = ports.faults;
  const self = ports.proc.read(ports.selfPid);
  const attempt = ports.newId();
  const sessionName = seat.seat;
  const tmux = ports.ownOn(seat.host);
  const where = { rig: seat.rig, seat: seat.seat };
  const taken = await reserveSeat(
    ports,
    seat,
    {
      seat: seat.seat,
      attempt,
      holderPid: ports.selfPid,
      holderStart: self?.startTime ?? null,
      server: tmux.key,
      sessionName,
      plan,
    },
    roster,
  );
  if (!taken.ok) return taken;
  const r = taken.id;
  store.events.append('fence.reserved', where, { reservation: r, attempt, plan });
  await atFault(faults, 'fence.after_reserved');

  if (!store.reservations.advance(r, 'reserved', 'helper_invoked'))
    return fail('LAUNCH_IN_PROGRESS', `reservation ${r} for ${seat.seat} was taken over`);
  store.events.append('fence.helper_invoked', where, { reservation: r, attempt, sessionName });
  const created = await tmux.newSession({
    name: sessionName,
    cwd: seat.cwd,
    seat: seat.seat,
    attempt,
    env: { ...extraEnv, ...seat.env, RIGDESK_SEAT: seat.seat, RIGDESK_ATTEMPT: attempt },
    argv: paneArgv,
  });
  await atFault(faults, 'fence.after_helper_invoked');
  if (!created.ok) {
    store.reservations.advance(r, 'helper_invoked', 'abandoned', { outcome: `create failed: ${created.code}` });
    store.events.append('fence.abandoned', where, { reservation: r, code: created.code, message: created.message });
    return created;
  }
  const id = created.identity;
  await bindCreated(ports, seat, plan, r, attempt, id);
  await atFault(faults, 'fence.after_created');
  store.reservations.advance(r, 'created', 'released', { outcome: 'launched' });
  const conversationId = plan.conversationId;
  store.events.append('seat.launch', where, {
    mode: plan.mode,
    runtime: plan.runtime,
    conversationId: conversationId ?? null,
    sessionId: id.sessionId,
    paneId: id.paneId,
  });
  const { server, sessionId, paneId, panePid } = id;
  const attach = attachArgv(ports, sessionId, server);
  return {
    ok: true,
    launched: {
      seat: seat.seat,
      mode: plan.mode,
      runtime: plan.runtime,
      conversationId,
      server,
      sessionName,
      sessionId,
      paneId,
      panePid,
      attach,
    },
  };
}

function launchInProgress(seat: string, row: { id: number; holderPid: number; phase: string }): Failure {
  return fail(
    'LAUNCH_IN_PROGRESS',
    `${seat} is being launched by another process (pid ${row.holderPid}, phase ${row.phase})`,
    {
      hint: 'Wait for it to finish, then check with rigdesk ps.',
      evidence: { reservation: row.id, holderPid: row.holderPid, phase: row.phase },
    },
  );
}
