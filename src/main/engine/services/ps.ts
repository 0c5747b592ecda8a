import type { Result } from '../../../shared/errors';
import type { PsAgent, PsRow } from '../../../shared/contract';
import { activityLabel } from '../activity/decide';
import { observeSeats } from '../activity/observe';
import type { Engine } from '../engine';
import type { HostHealth } from '../hosts/types';
import { attachArgv } from './launch';
import { bindDiscoveredConversations } from './bind';
import { hostUnreachable } from '../hosts/merge';

export async function ps(
  engine: Engine,
  opts: { rig?: string; all?: boolean } = {},
): Promise<Result<{ seats: PsRow[]; others: PsAgent[]; problems: string[]; hosts: HostHealth[] }>> {
  const roster = await engine.roster();
  bindDiscoveredConversations(engine, roster);
  const seats = engine.store.rigs.seats(opts.rig);
  const observed = await observeSeats(engine, roster, seats);
  const rows: PsRow[] = [];
  // Pids are per host: a seat's agent is known by (host, pid).
  const ours = new Set<string>();
  for (const seat of seats) {
    const { live, pane, activity } = observed.get(seat.seat)!;
    const base: PsRow = {
      seat: seat.seat,
      rig: seat.rig,
      pod: seat.pod,
      member: seat.member,
      runtime: seat.runtime,
      cwd: seat.cwd,
      state: 'stopped',
      activity: 'unknown',
      conversationId: seat.conversationId ?? undefined,
      stoppedOnPurpose: seat.stoppedOnPurpose,
      host: seat.host,
    };
    // A host that does not answer says nothing about its seats: unknown, never stopped or gone.
    if (seat.host !== 'local' && hostUnreachable(roster, seat.host) !== undefined) {
      rows.push({
        ...base,
        state: 'unknown',
        reason: 'host_unreachable',
        ...(live ? { server: live.server, sessionId: live.sessionId, paneId: live.paneId } : {}),
      });
      continue;
    }
    if (!live) {
      rows.push(base);
      continue;
    }
    if (!pane) {
      const running = engine.serverRunning(roster, live.server);
      rows.push({
        ...base,
        state: running === undefined ? 'unknown' : 'gone',
        server: live.server,
        sessionId: live.sessionId,
        paneId: live.paneId,
      });
      continue;
    }
    if (pane.agent) ours.add(`${pane.agent.host ?? 'local'}\0${pane.agent.pid}`);
    rows.push({
      ...base,
      state: 'running',
      activity: activityLabel(activity),
      ...(activity.needsInput !== 'none' ? { needsInput: activity.needsInput } : {}),
      session: activity.session,
      ...(activity.draft ? { draft: true } : {}),
      ...(activity.activity === 'unknown' && activity.basis.find((b) => b.detail)?.detail
        ? { activityWhy: activity.basis.find((b) => b.detail)!.detail }
        : {}),
      server: live.server,
      sessionName: pane.sessionName,
      sessionId: pane.sessionId,
      paneId: pane.paneId,
      pid: pane.agent?.pid ?? pane.lineage[0]?.pid ?? pane.panePid,
      conversationId: pane.agent?.conversationId ?? live.conversationId ?? seat.conversationId ?? undefined,
      attach: attachArgv(engine, pane.sessionId, pane.server),
    });
  }
  const others: PsAgent[] = opts.all
    ? roster.agents
        .filter((a) => !ours.has(`${a.host ?? 'local'}\0${a.pid}`))
        .map((a) => ({
          runtime: a.runtime,
          pid: a.pid,
          conversationId: a.conversationId,
          source: a.conversationSource,
          cwd: a.cwd,
          server: a.pane?.server,
          paneId: a.pane?.paneId,
          sessionName: a.pane?.sessionName,
          headless: !a.pane && !a.service,
          ...(a.host ? { host: a.host } : {}),
          ...(a.service ? { service: a.service, home: a.home } : {}),
        }))
    : [];
  return {
    ok: true,
    seats: rows,
    others,
    hosts: roster.hosts ?? [],
    problems: roster.problems.map(
      (p) =>
        `${p.probe}${p.host ? ` on ${p.host}` : ''}${p.server ? ` ${p.server}` : ''}${p.home ? ` ${p.home}` : ''}: ${p.error}`,
    ),
  };
}
