import type { PsAgent, PsAnswer, PsChanges, PsRow, SeatChanges, TmuxStuck } from '../../../shared/contract';
import { stuckLine, stuckWhileSlow } from './stuck-server';
import { keptChanges, listChanges, totals } from '../changes/list';
import type { SeatRow } from '../store';
import type { Result } from '../../../shared/errors';
import { activityLabel } from '../activity/decide';
import { type ObservedSeat, observeSeats } from '../activity/observe';
import type { Engine } from '../engine';
import { hostUnreachable } from '../hosts/merge';
import { serverRunning } from '../roster/lookup';
import type { Roster } from '../roster/types';
import { runtimeById } from '../runtimes';
import { bindDiscoveredConversations } from '../seats/bind';
import { attachArgv } from '../seats/attach';
import { seatCustody } from '../custody/seat';
import { seatUsage } from '../usage/live';
import { seatBudget } from '../usage/budget';
import { liveBudgetDeps } from '../usage/budget-live';

/**
 * Every seat as a row, from one roster and one batched capture per server; with `all`, the agents
 * that are not seats. Custody and `stateSince` come from that same roster and the store, never
 * from a scan of their own.
 */
export async function ps(
  engine: Engine,
  opts: { rig?: string; all?: boolean; changes?: boolean } = {},
): Promise<Result<PsAnswer>> {
  // A stuck server would hold this answer for every tmux command's time limit: when the roster is
  // slow and the probe proves the server stuck, ps answers at once with no pane read (seats unknown).
  const reading = engine.roster();
  const stuck = await stuckWhileSlow(engine, reading);
  if (stuck) reading.catch(() => undefined);
  const roster = stuck ? unread(engine, stuck) : await reading;
  bindDiscoveredConversations(engine.ports, roster);
  const seats = engine.store.rigs.seats(opts.rig);
  const observed = await observeSeats(engine.ports, roster, seats);
  const liveRows = engine.store.sessions.allLive();
  const work = await seatWork(engine, seats, opts.changes === true);
  const rows: PsRow[] = [];
  // Pids are per host: a seat's agent is known by (host, pid).
  const ours = new Set<string>();
  for (const seat of seats) {
    const o = observed.get(seat.seat)!;
    const row = seatRow(engine, roster, o);
    if (row.state === 'running' && o.pane?.agent) ours.add(`${o.pane.agent.host ?? 'local'}\0${o.pane.agent.pid}`);
    const custody = row.conversationId ? seatCustody(engine.ports, roster, o, row.conversationId, liveRows) : undefined;
    const since = engine.store.events.stateSince(seat.seat);
    const ended = row.activity === 'idle' ? engine.store.events.turnEndedAt(seat.seat) : undefined;
    rows.push({
      ...row,
      ...(custody ? { custody } : {}),
      ...(since !== undefined ? { stateSince: since } : {}),
      ...(ended !== undefined ? { turnEndedAt: ended } : {}),
      ...seatUsage(engine.ports, o, row),
      ...(seat.worktree
        ? { worktree: { path: seat.worktree.path, branch: seat.worktree.branch, base: seat.worktree.base } }
        : {}),
      ...(work.has(seat.seat) ? { changes: work.get(seat.seat) } : {}),
    });
  }
  // Budgets after every seat's usage was offered: today's spending includes this look's figures.
  const budgets = liveBudgetDeps(engine.ports);
  rows.forEach((row, i) => {
    const budget = seatBudget(budgets, seats[i]!);
    if (budget) row.budget = budget;
  });
  return {
    ok: true,
    seats: rows,
    others: opts.all ? otherAgents(roster, ours) : [],
    hosts: roster.hosts ?? [],
    ...(stuck ? { stuck } : {}),
    problems: roster.problems.map(
      (p) =>
        `${p.probe}${p.host ? ` on ${p.host}` : ''}${p.server ? ` ${p.server}` : ''}${p.home ? ` ${p.home}` : ''}: ${p.error}`,
    ),
  };
}

/** The roster ps answers with while the server is stuck: nothing read, the stuck server its problem. */
function unread(engine: Engine, stuck: TmuxStuck): Roster {
  return {
    takenAt: engine.now(),
    servers: [],
    panes: [],
    agents: [],
    claims: [],
    problems: [{ probe: 'tmux', error: `${stuckLine(stuck)}; ${stuck.hint}` }],
  };
}

/**
 * Each seat's change totals: what a watching engine keeps (no git work in a ps), or, asked by a
 * one-shot engine, read now.
 */
async function seatWork(engine: Engine, seats: SeatRow[], readNow: boolean): Promise<Map<string, PsChanges>> {
  const book = engine.ports.changes;
  const byseat = book.watching
    ? keptChanges(book, seats)
    : readNow
      ? new Map((await listChanges(book, seats)).map((c) => [c.seat, c]))
      : new Map<string, SeatChanges>();
  const out = new Map<string, PsChanges>();
  for (const [seat, c] of byseat) {
    if (c.problem || c.tree === undefined) continue;
    out.set(seat, {
      ...totals(c),
      ...(c.sharedWith.length ? { sharedWith: c.sharedWith } : {}),
      ...(c.overlaps.length ? { overlapsWith: c.overlaps.map((o) => o.seat) } : {}),
    });
  }
  return out;
}

/** One seat's row from what was observed of it: its state, activity and where it runs. */
function seatRow(engine: Engine, roster: Roster, { seat, live, pane, activity }: ObservedSeat): PsRow {
  const base: PsRow = {
    seat: seat.seat,
    rig: seat.rig,
    pod: seat.pod,
    member: seat.member,
    runtime: seat.runtime,
    ...conversationsOf(seat.runtime),
    cwd: seat.cwd,
    state: 'stopped',
    activity: 'unknown',
    conversationId: seat.conversationId ?? undefined,
    stoppedOnPurpose: seat.stoppedOnPurpose,
    host: seat.host,
  };
  // A host that does not answer says nothing about its seats: unknown, never stopped or gone.
  if (seat.host !== 'local' && hostUnreachable(roster, seat.host) !== undefined) {
    return {
      ...base,
      state: 'unknown',
      reason: 'host_unreachable',
      ...(live ? { server: live.server, sessionId: live.sessionId, paneId: live.paneId } : {}),
    };
  }
  if (!live) return base;
  if (!pane) {
    const running = serverRunning(roster, live.server);
    return {
      ...base,
      state: running === undefined ? 'unknown' : 'gone',
      server: live.server,
      sessionId: live.sessionId,
      paneId: live.paneId,
    };
  }
  const why = activity.activity === 'unknown' ? activity.basis.find((b) => b.detail)?.detail : undefined;
  return {
    ...base,
    state: 'running',
    activity: activityLabel(activity),
    ...(activity.needsInput !== 'none' ? { needsInput: activity.needsInput } : {}),
    session: activity.session,
    ...(activity.draft ? { draft: true } : {}),
    ...(why ? { activityWhy: why } : {}),
    server: live.server,
    sessionName: pane.sessionName,
    sessionId: pane.sessionId,
    paneId: pane.paneId,
    pid: pane.agent?.pid ?? pane.lineage[0]?.pid ?? pane.panePid,
    conversationId: pane.agent?.conversationId ?? live.conversationId ?? seat.conversationId ?? undefined,
    attach: attachArgv(engine.ports, pane.sessionId, pane.server),
  };
}

/** Whether the seat's runtime keeps conversations, as the adapter says (nothing for an unknown runtime). */
function conversationsOf(runtime: string): Pick<PsRow, 'conversations'> {
  const adapter = runtimeById(runtime);
  return adapter ? { conversations: adapter.conversations } : {};
}

/** The agents of the roster that are not seats' own: on other servers, headless, or a runtime's daemon. */
function otherAgents(roster: Roster, ours: ReadonlySet<string>): PsAgent[] {
  return roster.agents
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
    }));
}
