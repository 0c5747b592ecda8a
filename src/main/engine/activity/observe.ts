import { statSync } from 'node:fs';
import { HOOK_FILE_MAX_BYTES, readRegularText } from '../read-file';
import { hostOfServer } from '../tmux/identity';
import type { Engine } from '../engine';
import { remoteHookEvidence } from '../hosts/hook-watch';
import { hookFileFor, readClaudeHook } from '../runtimes/hooks/claude';
import type { Roster, RosterPane } from '../roster/types';
import { runtimeById } from '../runtimes';
import { claudeLiveStatus } from '../runtimes/claude-code';
import type { SeatRow, SessionRow } from '../store';
import { capturePanes } from './capture';
import { decideActivity, type Evidence, type SeatActivity, type SessionAxis } from './decide';

export interface ObservedSeat {
  seat: SeatRow;
  live?: SessionRow;
  pane?: RosterPane;
  activity: SeatActivity;
}

/** Told of every observation taken on an engine, by whoever took it. */
export type Looker = (roster: Roster, observed: ReadonlyMap<string, ObservedSeat>) => void;

const LOOKERS = new WeakMap<Engine, Set<Looker>>();

/**
 * Every look at seats on this engine, whoever took it for whatever reason (`ps` for a window, a
 * send, the activity monitor itself): the monitor records what changed from any of them rather
 * than taking a roster of its own a moment later.
 */
export function onObserved(engine: Engine, fn: Looker): () => void {
  const set = LOOKERS.get(engine) ?? new Set<Looker>();
  LOOKERS.set(engine, set);
  set.add(fn);
  return () => void set.delete(fn);
}

/**
 * Gathers every kind of evidence for the given seats from one roster and one batched capture per
 * tmux server, then decides each seat's activity. Costs O(servers) spawns, not O(seats).
 */
export async function observeSeats(
  engine: Engine,
  roster: Roster,
  seats: readonly SeatRow[],
): Promise<Map<string, ObservedSeat>> {
  const now = engine.now();
  // One read of the live rows for many seats (a seat has at most one; the newest wins, as live() does).
  const liveOf =
    seats.length > 1
      ? (() => {
          const bySeat = new Map(engine.store.sessions.allLive().map((r) => [r.seat, r]));
          return (seat: string) => bySeat.get(seat);
        })()
      : (seat: string) => engine.store.sessions.live(seat);
  const found = seats.map((seat) => {
    const live = liveOf(seat.seat);
    return { seat, live, pane: live ? engine.paneOf(roster, live) : undefined };
  });
  // Only the screens a runtime reads (a shell seat's is never read: its process tree says it all).
  const byServer = new Map<string, string[]>();
  for (const f of found)
    if (f.pane && !f.pane.paneDead && runtimeById(f.seat.runtime)?.readScreen)
      byServer.set(f.pane.server, [...(byServer.get(f.pane.server) ?? []), f.pane.paneId]);
  const screens = new Map<string, Awaited<ReturnType<typeof capturePanes>> extends Map<string, infer V> ? V : never>();
  await Promise.all(
    [...byServer].map(async ([server, panes]) => {
      for (const [id, text] of await capturePanes(engine.client(server), panes)) screens.set(`${server} ${id}`, text);
    }),
  );

  const out = new Map<string, ObservedSeat>();
  for (const { seat, live, pane } of found) {
    const evidence: Evidence[] = [];
    const session = sessionAxis(seat, live, pane, roster, engine);
    if (pane && session === 'present') {
      const adapter = runtimeById(seat.runtime);
      if (seat.runtime === 'shell') {
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
      if (seat.runtime === 'claude-code' && pane.agent) {
        // A remote seat's hook writes on its host; the host's evidence round read it.
        const hook = here
          ? readHookEvidence(engine, seat.seat, pane.agent.conversationId)
          : remoteHookEvidence(engine.hosts.hooks.get(seat.seat), pane.agent.conversationId, now);
        if (hook) evidence.push(hook);
        const home = pane.agent.home ?? engine.seatHome(seat);
        const st = home && here ? claudeLiveStatus(home, pane.agent.pid, engine.deps.io) : undefined;
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
      const home = pane.agent?.home ?? engine.seatHome(seat);
      if (adapter?.transcriptActivity && conv && home && here) {
        try {
          const t = adapter.transcriptActivity(home, conv, engine.deps.io);
          if (t) evidence.push({ source: 'transcript', at: now, activity: t, detail: 'turn events in the transcript' });
        } catch {
          /* unreadable transcript: no claim from it */
        }
      }
      const screen = screens.get(`${pane.server} ${pane.paneId}`);
      if (screen && adapter?.readScreen) {
        const r = adapter.readScreen({ ...screen, title: pane.title });
        // Claude leaves its live-state file (and last hook) at "busy" after a turn is interrupted
        // at a prompt; its footer's idle marker, which it draws only when no turn runs, overrules
        // a stale "working" from either, and a permission its last hook asked for that the screen
        // no longer shows (a prompt answered "no" fires no hook after it).
        if (seat.runtime === 'claude-code' && r.activity === 'idle' && r.matched?.includes('? for shortcuts')) {
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
  for (const fn of LOOKERS.get(engine) ?? []) fn(roster, out);
  return out;
}

function sessionAxis(
  seat: SeatRow,
  live: SessionRow | undefined,
  pane: RosterPane | undefined,
  roster: Roster,
  engine: Engine,
): SessionAxis {
  if (!live) return 'absent';
  if (!pane) return engine.serverRunning(roster, live.server) === undefined ? 'detached' : 'absent';
  if (pane.paneDead) return 'exited';
  // The pane runs Rigdesk's wrapper; the seat's program is its child. Without it the wrapper's
  // shell is in front: the agent exited. The roster's own process table says so (a pane made by
  // hand has no such fact: read now).
  const wrapped =
    pane.wrapped ??
    (hostOfServer(pane.server) === 'local' ? engine.deps.proc : engine.procOf(pane.server))
      .read(pane.panePid)
      ?.argv.includes('rigdesk-seat');
  if (!wrapped) return 'exited';
  if (seat.runtime === 'shell') return pane.lineage.length > 0 ? 'present' : 'exited';
  return pane.agent ? 'present' : 'exited';
}

/** The seat's last Claude hook event, if it belongs to the conversation the pane's agent writes. */
function readHookEvidence(engine: Engine, seat: string, conversationId: string | undefined): Evidence | undefined {
  const file = hookFileFor(engine.deps.layout.hooksDir, seat);
  let raw: string;
  let at: number;
  try {
    at = statSync(file).mtimeMs;
    raw = readRegularText(file, HOOK_FILE_MAX_BYTES);
  } catch {
    return undefined;
  }
  const h = readClaudeHook(raw);
  if (conversationId && h.sessionId && h.sessionId !== conversationId) return undefined; // another occupant's
  if (!h.activity && !h.needsInput) return undefined;
  const e: Evidence = { source: 'hook', at: Math.min(at, engine.now()), detail: `hook ${h.event}` };
  if (h.activity) e.activity = h.activity;
  if (h.needsInput) e.needsInput = h.needsInput;
  return e;
}
