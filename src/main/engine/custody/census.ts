import { fail, type Result } from '../../../shared/errors';
import type { Ports } from '../ports';
import type { Roster } from '../roster/types';
import type { ReservationRow } from '../store';
import type { SessionIdentity } from '../tmux/identity';

/**
 * A reservation left active by a holder that is gone is never reused blindly (docs/architecture.md
 * invariant 3): the live tmux identities are counted first, and what they show decides.
 *  - holder still alive            -> refuse (a launch is in progress)
 *  - reserved, nothing created     -> abandoned
 *  - helper_invoked, a session carries the attempt tag -> adopted as the seat's occupant
 *  - helper_invoked, no such session                    -> abandoned
 *  - created, the session is alive -> adopted (released); gone -> abandoned
 * If the server holding the evidence cannot be listed, nothing is decided (fail closed).
 */
export async function resolveStaleReservation(
  ports: Pick<Ports, 'proc' | 'store'>,
  row: ReservationRow,
  roster: Roster,
): Promise<Result<{ outcome: 'abandoned' | 'adopted' }>> {
  const holder = ports.proc.read(row.holderPid);
  if (holder && (row.holderStart === null || holder.startTime === row.holderStart)) {
    return fail(
      'LAUNCH_IN_PROGRESS',
      `${row.seat} is being launched by another process (pid ${row.holderPid}, phase ${row.phase})`,
      {
        hint: 'Wait for it to finish, then check with rigdesk ps.',
        evidence: { reservation: row.id, holderPid: row.holderPid, phase: row.phase },
      },
    );
  }
  const listing = roster.servers.find((s) => s.server === row.server);
  if (!listing || roster.problems.some((p) => p.server === row.server)) {
    return fail(
      'EVIDENCE_UNREADABLE',
      `cannot list tmux server ${row.server} to settle the stale reservation of ${row.seat}`,
      { evidence: { reservation: row.id, problems: roster.problems } },
    );
  }
  const { store } = ports;
  const [rig] = row.seat.split('@').slice(1);
  const record = (outcome: 'abandoned' | 'adopted', why: string, extra: Record<string, unknown> = {}) => {
    store.events.append(
      'fence.census',
      { rig, seat: row.seat },
      { reservation: row.id, phase: row.phase, holderPid: row.holderPid, outcome, why, ...extra },
    );
  };

  if (row.phase === 'reserved') {
    store.reservations.advance(row.id, 'reserved', 'abandoned', {
      outcome: 'census: holder died before creating anything',
    });
    record('abandoned', 'holder died before creating anything');
    return { ok: true, outcome: 'abandoned' };
  }
  if (row.phase === 'helper_invoked') {
    const pane = roster.panes.find((p) => p.server === row.server && p.attemptTag === row.attempt);
    if (!pane) {
      store.reservations.advance(row.id, 'helper_invoked', 'abandoned', {
        outcome: 'census: no session carries the attempt tag',
      });
      record('abandoned', 'no session carries the attempt tag');
      return { ok: true, outcome: 'abandoned' };
    }
    const identity: SessionIdentity = {
      server: pane.server,
      serverPid: pane.serverPid,
      sessionId: pane.sessionId,
      sessionCreated: pane.sessionCreated,
      sessionName: pane.sessionName,
      paneId: pane.paneId,
      panePid: pane.panePid,
    };
    store.db
      .transaction(() => {
        store.reservations.advance(row.id, 'helper_invoked', 'created', { identity });
        if (!store.sessions.live(row.seat)) {
          store.sessions.insertLive(row.seat, row.plan?.runtime ?? 'shell', identity, {
            panePidStart: pane.panePidStart ?? null,
            conversationId: row.plan?.conversationId ?? null,
          });
          if (row.plan?.conversationId) store.rigs.setConversation(row.seat, row.plan.conversationId);
        }
        store.reservations.advance(row.id, 'created', 'released', {
          outcome: 'census: adopted the session carrying the attempt tag',
        });
      })
      .immediate();
    record('adopted', 'a session carries the attempt tag', { identity });
    return { ok: true, outcome: 'adopted' };
  }
  // created: the identity was recorded together with the session row.
  const id = row.identity!;
  const alive = roster.panes.some(
    (p) =>
      p.server === id.server &&
      p.sessionId === id.sessionId &&
      p.serverPid === id.serverPid &&
      p.sessionCreated === id.sessionCreated,
  );
  if (alive) {
    store.reservations.advance(row.id, 'created', 'released', { outcome: 'census: session alive, adopted' });
    record('adopted', 'the created session is alive', { identity: id });
    return { ok: true, outcome: 'adopted' };
  }
  store.db
    .transaction(() => {
      store.reservations.advance(row.id, 'created', 'abandoned', { outcome: 'census: the created session is gone' });
      const live = store.sessions.live(row.seat);
      if (live && live.sessionId === id.sessionId && live.serverPid === id.serverPid)
        store.sessions.end(live.id, 'gone');
    })
    .immediate();
  record('abandoned', 'the created session is gone', { identity: id });
  return { ok: true, outcome: 'abandoned' };
}
