import type { Result } from '../../../shared/errors';
import type { PsAgent, PsRow } from '../../../shared/contract';
import { claudeLiveStatus } from '../runtimes/claude-code';
import type { Engine } from '../engine';
import type { RosterPane } from '../roster/types';
import type { SeatRow } from '../store';
import { attachArgv } from './launch';

/**
 * Activity as far as the engine can tell without screen evidence: Claude's live-state status,
 * the foreground process of a shell seat, or the agent having left its pane. Anything else is
 * `unknown`, never idle.
 */
function activityOf(engine: Engine, seat: SeatRow, pane: RosterPane): Pick<PsRow, 'activity' | 'needsInput'> {
  const wrapperGone = !pane.lineage.length && pane.foreground?.pid === pane.panePid;
  if (seat.runtime === 'shell') {
    const fg = pane.foreground;
    if (!fg) return { activity: 'unknown' };
    const seatProc = pane.lineage[0];
    if (!seatProc) return { activity: 'exited' };
    return { activity: fg.pid === seatProc.pid ? 'idle' : 'working' };
  }
  if (!pane.agent) return { activity: wrapperGone || pane.lineage.length <= 1 ? 'exited' : 'unknown' };
  if (seat.runtime === 'claude-code') {
    const home = pane.agent.home ?? engine.seatHome(seat);
    const st = home ? claudeLiveStatus(home, pane.agent.pid, engine.deps.io) : undefined;
    if (st?.status === 'idle') return { activity: 'idle' };
    if (st?.status === 'busy') return { activity: 'working' };
    if (st?.status === 'waiting') return { activity: 'needs_input', needsInput: /permission/i.test(st.waitingFor ?? '') ? 'permission' : 'question' };
  }
  return { activity: 'unknown' };
}

export async function ps(engine: Engine, opts: { rig?: string; all?: boolean } = {}): Promise<Result<{ seats: PsRow[]; others: PsAgent[]; problems: string[] }>> {
  const roster = await engine.roster();
  const seats = engine.store.rigs.seats(opts.rig);
  const rows: PsRow[] = [];
  const ours = new Set<number>();
  for (const seat of seats) {
    const live = engine.store.sessions.live(seat.seat);
    const pane = live ? engine.paneOf(roster, live) : undefined;
    const base: PsRow = {
      seat: seat.seat, rig: seat.rig, pod: seat.pod, member: seat.member, runtime: seat.runtime, cwd: seat.cwd,
      state: 'stopped', activity: 'unknown', conversationId: seat.conversationId ?? undefined, stoppedOnPurpose: seat.stoppedOnPurpose,
    };
    if (!live) {
      rows.push(base);
      continue;
    }
    if (!pane) {
      const running = engine.serverRunning(roster, live.server);
      rows.push({ ...base, state: running === undefined ? 'unknown' : 'gone', server: live.server, sessionId: live.sessionId, paneId: live.paneId });
      continue;
    }
    if (pane.agent) ours.add(pane.agent.pid);
    rows.push({
      ...base,
      state: 'running',
      ...activityOf(engine, seat, pane),
      server: live.server, sessionName: pane.sessionName, sessionId: pane.sessionId, paneId: pane.paneId,
      pid: pane.agent?.pid ?? pane.lineage[0]?.pid ?? pane.panePid,
      conversationId: pane.agent?.conversationId ?? live.conversationId ?? seat.conversationId ?? undefined,
      attach: attachArgv(engine, pane.sessionId),
    });
  }
  const others: PsAgent[] = opts.all
    ? roster.agents.filter((a) => !ours.has(a.pid)).map((a) => ({
        runtime: a.runtime, pid: a.pid, conversationId: a.conversationId, source: a.conversationSource, cwd: a.cwd,
        server: a.pane?.server, paneId: a.pane?.paneId, sessionName: a.pane?.sessionName, headless: !a.pane,
      }))
    : [];
  return { ok: true, seats: rows, others, problems: roster.problems.map((p) => `${p.probe}${p.server ? ` ${p.server}` : ''}${p.home ? ` ${p.home}` : ''}: ${p.error}`) };
}
