import { hostOfServer } from '../tmux/identity';
import type { Ports } from '../ports';
import type { Roster, RosterPane } from '../roster/types';
import { keepsConversations, runtimeById } from '../runtimes';
import type { SeatRow, SessionRow } from '../store';
import { capturePanes } from './capture';
import { readHookEvidence, remoteHookEvidence } from './hooks';
import { decideActivity, type Evidence, type SeatActivity, type SessionAxis } from './decide';
import { paneOf, serverRunning } from '../roster/lookup';

/** What a look at seats reads: the seats' rows, their panes' screens, hooks and live-state files. */
export type ObservePorts = Pick<
  Ports,
  'store' | 'clock' | 'client' | 'hosts' | 'io' | 'fs' | 'layout' | 'proc' | 'procOf' | 'seatHome'
> &
  LookPorts;

/** What a fresh look takes: a roster of its own, then a look at the seats on it. */
export type FreshLookPorts = ObservePorts & Pick<Ports, 'roster'>;

export interface ObservedSeat {
  seat: SeatRow;
  live?: SessionRow;
  pane?: RosterPane;
  activity: SeatActivity;
}

/** Told of every observation taken on an engine, by whoever took it. */
export type Looker = (roster: Roster, observed: ReadonlyMap<string, ObservedSeat>) => void;

/**
 * Every look at seats on one engine, whoever took it for whatever reason (`ps` for a window, a
 * send, the activity monitor itself): the monitor records what changed from any of them rather
 * than taking a roster of its own a moment later. The engine holds one; every look tells it.
 */
export class Looks {
  private readonly lookers = new Set<Looker>();

  on(fn: Looker): () => void {
    this.lookers.add(fn);
    return () => void this.lookers.delete(fn);
  }

  tell(roster: Roster, observed: ReadonlyMap<string, ObservedSeat>): void {
    for (const fn of this.lookers) fn(roster, observed);
  }
}

/** What a function that looks at seats tells its look to. */
export interface LookPorts {
  readonly looks: Looks;
}

/**
 * Gathers every kind of evidence for the given seats from one roster and one batched capture per
 * tmux server, then decides each seat's activity. Costs O(servers) spawns, not O(seats).
 */
export async function observeSeats(
  ports: ObservePorts,
  roster: Roster,
  seats: readonly SeatRow[],
): Promise<Map<string, ObservedSeat>> {
  const now = ports.clock.now();
  // One read of the live rows for many seats (a seat has at most one; the newest wins, as live() does).
  const liveOf =
    seats.length > 1
      ? (() => {
          const bySeat = new Map(ports.store.sessions.allLive().map((r) => [r.seat, r]));
          return (seat: string) => bySeat.get(seat);
        })()
      : (seat: string) => ports.store.sessions.live(seat);
  const found = seats.map((seat) => {
    const live = liveOf(seat.seat);
    return { seat, live, pane: live ? paneOf(roster, live) : undefined };
  });
  // Only the screens a runtime reads (a shell seat's is never read: its process tree says it all).
  const byServer = new Map<string, string[]>();
  for (const f of found)
    if (f.pane && !f.pane.paneDead && runtimeById(f.seat.runtime)?.readScreen)
      byServer.set(f.pane.server, [...(byServer.get(f.pane.server) ?? []), f.pane.paneId]);
  const screens = new Map<string, Awaited<ReturnType<typeof capturePanes>> extends Map<string, infer V> ? V : never>();
  await Promise.all(
    [...byServer].map(async ([server, panes]) => {
      for (const [id, text] of await capturePanes(ports.client(server), panes)) screens.set(`${server} ${id}`, text);
    }),
  );

  const out = new Map<string, ObservedSeat>();
  for (const { seat, live, pane } of found) {
    const evidence: Evidence[] = [];
    const session = sessionAxis(seat, live, pane, roster, ports);
    if (pane && session === 'present') {
      const adapter = runtimeById(seat.runtime);
      if (adapter && !adapter.conversations) {
        // A program with no conversation: its process tree says whether it works.
        const program = pane.lineage[0];
        if (program && pane.foreground)
          evidence.push({
            source: 'process',
            at: now,
            activity: pane.foreground.pid === program.pid ? 'idle' : 'working',
            detail: `foreground ${pane.foreground.comm}`,
          });
      }
      // A remote pane's files are on its host: this machine's files at the same path say nothing
      // about it (and could mislead), so its activity comes from its screen and roster only.
      const here = hostOfServer(pane.server) === 'local';
      if (adapter?.readHook && pane.agent) {
        // A remote seat's hook writes on its host; the host's evidence round read it.
        const hook = here
          ? readHookEvidence(ports, adapter.readHook, seat.seat, pane.agent.conversationId)
          : remoteHookEvidence(adapter.readHook, ports.hosts.hooks.get(seat.seat), pane.agent.conversationId, now);
        if (hook) evidence.push(hook);
      }
      if (adapter?.liveStatus && pane.agent) {
        const home = pane.agent.home ?? ports.seatHome(seat);
        const st = home && here ? adapter.liveStatus(home, pane.agent.pid, ports.io) : undefined;
        if (st?.status === 'busy')
          evidence.push({ source: 'live_state', at: now, activity: 'working', detail: 'sessions/<pid>.json busy' });
        else if (st?.status === 'idle')
          evidence.push({ source: 'live_state', at: now, activity: 'idle', detail: 'sessions/<pid>.json idle' });
        else if (st?.status === 'waiting')
          evidence.push({
            source: 'live_state',
            at: now,
            needsInput: /permission/i.test(st.waitingFor ?? '') ? 'permission' : 'question',
            detail: `waiting for ${st.waitingFor ?? 'input'}`,
          });
      }
      const conv = pane.agent?.conversationId ?? live?.conversationId ?? undefined;
      const home = pane.agent?.home ?? ports.seatHome(seat);
      if (adapter?.transcriptActivity && conv && home && here) {
        try {
          const t = adapter.transcriptActivity(home, conv, ports.io);
          if (t) evidence.push({ source: 'transcript', at: now, activity: t, detail: 'turn events in the transcript' });
        } catch {
          /* unreadable transcript: no claim from it */
        }
      }
      const screen = screens.get(`${pane.server} ${pane.paneId}`);
      if (screen && adapter?.readScreen) {
        const r = adapter.readScreen({ ...screen, title: pane.title });
        // Claude leaves its live-state file (and last hook) at "busy" after a turn is interrupted
        // at a prompt; an idle mark it draws only when no turn runs (its footer) overrules a
        // stale "working" from either, and a permission its last hook asked for that the screen
        // no longer shows (a prompt answered "no" fires no hook after it).
        if (adapter.idleMarked?.(r)) {
          for (let i = evidence.length - 1; i >= 0; i--) {
            const e = evidence[i]!;
            const staleWork =
              (e.source === 'live_state' || e.source === 'hook') && e.activity === 'working' && !e.needsInput;
            if (staleWork || (e.source === 'hook' && e.needsInput && !r.needsInput)) evidence.splice(i, 1);
          }
        }
        const e: Evidence = { source: 'screen', at: now, detail: r.matched?.join('; ') };
        if (r.activity) e.activity = r.activity;
        if (r.needsInput) e.needsInput = r.needsInput;
        if (r.draft !== undefined) e.draft = r.draft;
        evidence.push(e);
      }
    }
    out.set(seat.seat, { seat, live, pane, activity: decideActivity({ session, evidence, now }) });
  }
  ports.looks.tell(roster, out);
  return out;
}

function sessionAxis(
  seat: SeatRow,
  live: SessionRow | undefined,
  pane: RosterPane | undefined,
  roster: Roster,
  ports: Pick<Ports, 'proc' | 'procOf'>,
): SessionAxis {
  if (!live) return 'absent';
  if (!pane) return serverRunning(roster, live.server) === undefined ? 'detached' : 'absent';
  if (pane.paneDead) return 'exited';
  // The pane runs Rigdesk's wrapper; the seat's program is its child. Without it the wrapper's
  // shell is in front: the agent exited. The roster's own process table says so (a pane made by
  // hand has no such fact: read now).
  const wrapped =
    pane.wrapped ??
    (hostOfServer(pane.server) === 'local' ? ports.proc : ports.procOf(pane.server))
      .read(pane.panePid)
      ?.argv.includes('rigdesk-seat');
  if (!wrapped) return 'exited';
  if (!keepsConversations(seat.runtime)) return pane.lineage.length > 0 ? 'present' : 'exited';
  return pane.agent ? 'present' : 'exited';
}
