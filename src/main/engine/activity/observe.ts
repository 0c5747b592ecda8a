import { hostOfServer } from '../tmux/identity';
import type { Ports } from '../ports';
import type { Roster, RosterPane } from '../roster/types';
import { keepsConversations, runtimeById } from '../runtimes';
import type { SeatRow, SessionRow } from '../store';
import { capturePanes } from './capture';
import { seatEvidence } from './evidence';
import { decideActivity, type SeatActivity, type SessionAxis } from './decide';
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
    const session = sessionAxis(seat, live, pane, roster, ports);
    const evidence =
      pane && session === 'present'
        ? seatEvidence(ports, { seat, live, pane }, screens.get(`${pane.server} ${pane.paneId}`), now)
        : [];
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
