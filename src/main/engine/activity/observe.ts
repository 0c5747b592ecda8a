import { hostOfServer } from '../tmux/identity';
import type { Ports } from '../ports';
import type { Roster, RosterPane } from '../roster/types';
import { DEFAULT_START_MS, keepsConversations, runtimeById } from '../runtimes';
import type { SeatRow, SessionRow } from '../store';
import { capturePanes } from './capture';
import { seatEvidence } from './evidence';
import {
  decideActivity,
  type SeatActivity,
  type SessionAxis,
  saysReady,
  type StartWindow,
  withinStart,
} from './decide';
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
  /** Launches (live session ids) a look on this engine has seen ready: never `starting` again. */
  private readonly ready = new Set<number>();

  readySeen(sessionId: number): boolean {
    return this.ready.has(sessionId);
  }

  sawReady(sessionId: number): void {
    if (this.ready.size > 10_000) this.ready.clear();
    this.ready.add(sessionId);
  }

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
    const start = live && startWindow(ports.looks, seat, live);
    const session = sessionAxis(seat, live, pane, roster, ports, start !== undefined && withinStart(start, now));
    const evidence =
      pane && session === 'present'
        ? seatEvidence(ports, { seat, live, pane }, screens.get(`${pane.server} ${pane.paneId}`), now)
        : [];
    const activity = decideActivity({ session, evidence, now, start });
    if (live && saysReady(activity)) ports.looks.sawReady(live.id);
    out.set(seat.seat, { seat, live, pane, activity });
  }
  ports.looks.tell(roster, out);
  return out;
}

/** The seat's launch, as the start of its `starting` window (decide.ts). */
function startWindow(looks: Looks, seat: SeatRow, live: SessionRow): StartWindow {
  return {
    launchedAt: live.startedAt,
    startMs: runtimeById(seat.runtime)?.startMs ?? DEFAULT_START_MS,
    readySeen: looks.readySeen(live.id),
  };
}

function sessionAxis(
  seat: SeatRow,
  live: SessionRow | undefined,
  pane: RosterPane | undefined,
  roster: Roster,
  ports: Pick<Ports, 'proc' | 'procOf'>,
  starting: boolean,
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
  // In a launch's first moments the program is not there yet: tmux's fork has not become the
  // wrapper, or the wrapper has not started the agent. That is a start, not an exit (an agent that
  // did exit leaves the wrapper's shell in front, which is neither).
  if (!wrapped) return starting && pane.unborn ? 'present' : 'exited';
  const child = keepsConversations(seat.runtime) ? pane.agent !== undefined : pane.lineage.length > 0;
  return child || starting ? 'present' : 'exited';
}
