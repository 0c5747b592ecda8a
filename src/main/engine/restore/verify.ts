import { evidencedActivity } from '../activity/decide';
import { capturePanes } from '../activity/capture';
import { hostOfServer } from '../tmux/identity';
import { observeSeats, type ObservedSeat } from '../activity/observe';
import type { Ports } from '../ports';
import type { Roster, RosterPane } from '../roster/types';
import { runtimeById, type NeedsInputReason } from '../runtimes';
import type { SeatRow, SessionRow } from '../store';
import { paneOf, serverRunning } from '../roster/lookup';
import type { VerifyPorts } from './ports';

/**
 * "A resume counts only when a process in the pane's lineage names the exact conversation"
 * (docs/architecture.md invariant 7). Argv names the id the moment the process starts, before the runtime
 * has looked for the conversation, so an argv claim must hold for a settle time with no
 * "conversation missing" report on screen; a live-state file or writer lock (written once the
 * runtime has opened it, and for Claude only once its startup dialogs are past) counts at once.
 *
 * An agent that is up but waiting on a dialog (trust, login, permission...: `needs_input` from
 * observeSeats) is neither resumed nor failed: it is `attention`. Because a dialog is drawn a
 * moment after the process starts, an argv claim also waits until the screen shows the agent's
 * own idle or working state; a screen that shows neither (a stand-in, or an agent still drawing)
 * counts only after `quietMs` with no dialog, counted from when the pane first showed anything (a
 * real Claude on a loaded machine drew nothing for over 4 s, then its trust dialog).
 *
 * A seat on another host is verified the same way, from that host: the conversation claim comes
 * from the host's roster (its own process scan for argv, its evidence files read over ssh for
 * live state; the roster port merges each host's), and the screen (the runtime's "conversation
 * missing" report, dialogs, the wrapper's exit line) is captured from the host's tmux over its
 * ssh connection (the client port for a server rides the host's exec). This machine's process table and
 * files are never read for a remote pane (activity/observe.ts skips them); a remote agent's
 * live-state and transcript activity are not read either, so its resume settles on the screen.
 */

export interface VerifyOptions {
  timeoutMs: number;
  settleMs: number;
  /** How long an argv claim must hold when the screen shows no known state (see above). */
  quietMs: number;
  intervalMs: number;
}

export const DEFAULT_VERIFY: VerifyOptions = { timeoutMs: 30_000, settleMs: 1500, quietMs: 4000, intervalMs: 200 };

export type Verdict =
  | { verdict: 'resumed'; pid: number; source: string; conversationId: string }
  | { verdict: 'missing'; screen: string }
  | { verdict: 'exited'; screen: string }
  | { verdict: 'gone' }
  | {
      verdict: 'attention';
      reason: NeedsInputReason;
      screen: string;
      pid?: number;
      conversationId?: string;
      basis?: unknown;
    }
  | { verdict: 'unproven'; screen: string; agentConversation?: string };

/** The pane wrapper's own line when the agent leaves (runtimes/env.ts PANE_WRAPPER). */
export const WRAPPER_EXIT = /\[rigdesk\] \S+ exited with status (\d+)/;

/**
 * One roster shared by every seat verifying at the same moment: O(1) spawns per tick, not per
 * seat. A caller passes `notBefore` (when its own launch finished): a roster begun earlier cannot
 * show its pane and would read as "gone".
 */
export type RosterSource = (notBefore?: number) => Promise<Roster>;

export function sharedRoster(ports: Pick<Ports, 'clock' | 'roster'>, maxAgeMs = 150): RosterSource {
  let at = 0;
  let current: Promise<Roster> | undefined;
  return (notBefore = 0) => {
    const t = ports.clock.now();
    if (!current || t - at > maxAgeMs || at < notBefore) {
      at = t;
      current = ports.roster();
    }
    return current;
  };
}

/**
 * observeSeats for every seat being verified at the same moment, in one batch, with the same
 * panes' screens: one capture per tmux server per turn for observeSeats and one for the screens,
 * whatever the number of seats restoring in parallel.
 */
export interface Observation {
  seen?: ObservedSeat;
  /** The pane's visible screen, plain text (the "conversation missing" report, the wrapper's exit line). */
  screen?: string;
}

export interface ObserverSource {
  watch(seat: string): () => void;
  observe(seat: string, roster: Roster): Promise<Observation>;
}

/** One batched look at some seats' panes on one roster (the default is `lookAt`). */
export type BatchLook = (roster: Roster, seats: readonly string[]) => Promise<Map<string, Observation>>;

/**
 * Each seat's look is kept for `maxAgeMs` on its roster (or an older one), and the seats that ask
 * for a new one in the same turn of the event loop share one batch. A seat that starts being
 * watched is looked at with whoever asks with it, not by a new look at every seat already
 * watched: with 200 seats launching one after another that was a capture of every pending pane
 * per new seat, on the tmux thread the launches' creates wait on.
 */
export function sharedObserver(ports: VerifyPorts, maxAgeMs = 150, look: BatchLook = lookAt(ports)): ObserverSource {
  const watching = new Map<string, number>();
  const kept = new Map<string, { at: number; basis: Roster; obs: Promise<Observation> }>();
  let gathering: { seats: Set<string>; roster: Roster; result?: Promise<Map<string, Observation>> } | undefined;
  const gather = (roster: Roster) => {
    const g: { seats: Set<string>; roster: Roster; result?: Promise<Map<string, Observation>> } = {
      seats: new Set<string>(),
      roster,
    };
    const result = new Promise<void>((r) => setImmediate(r)).then(() => {
      if (gathering === g) gathering = undefined;
      return look(g.roster, [...g.seats]);
    });
    g.result = result;
    return { g, result };
  };
  return {
    watch(seat) {
      watching.set(seat, (watching.get(seat) ?? 0) + 1);
      return () => {
        const n = (watching.get(seat) ?? 1) - 1;
        if (n > 0) return void watching.set(seat, n);
        watching.delete(seat);
        kept.delete(seat);
      };
    },
    observe(seat, roster) {
      const t = ports.clock.now();
      const k = kept.get(seat);
      if (k && t - k.at <= maxAgeMs && (k.basis === roster || k.basis.takenAt >= roster.takenAt)) return k.obs;
      const g = gathering ?? (gathering = gather(roster).g);
      g.seats.add(seat);
      if (roster.takenAt > g.roster.takenAt) g.roster = roster;
      const obs = g.result!.then((m) => m.get(seat) ?? {});
      if (watching.has(seat)) kept.set(seat, { at: t, basis: roster, obs });
      return obs;
    },
  };
}

/** observeSeats and the plain screens of some seats' panes, one capture per tmux server for each. */
export function lookAt(ports: VerifyPorts): BatchLook {
  const rows = new Map<string, SeatRow>();
  return async (roster, seats) => {
    // A seat's row is read once per proof (its runtime and home do not change under it); the live rows in one query.
    const found: SeatRow[] = [];
    for (const s of seats) {
      const row = rows.get(s) ?? ports.store.rigs.seat(s);
      if (row) rows.set(s, row), found.push(row);
    }
    const liveOf = new Map(ports.store.sessions.allLive().map((r) => [r.seat, r]));
    const byServer = new Map<string, { seat: string; paneId: string }[]>();
    for (const row of found) {
      const live = liveOf.get(row.seat);
      const pane = live ? paneOf(roster, live) : undefined;
      if (pane && !pane.paneDead)
        byServer.set(pane.server, [...(byServer.get(pane.server) ?? []), { seat: row.seat, paneId: pane.paneId }]);
    }
    const screens = new Map<string, string>();
    const [seen] = await Promise.all([
      observeSeats(ports, roster, found),
      ...[...byServer].map(async ([server, panes]) => {
        const got = await capturePanes(
          ports.client(server),
          panes.map((p) => p.paneId),
        );
        for (const p of panes) {
          const text = got.get(p.paneId);
          if (text) screens.set(p.seat, text.plain.join('\n'));
        }
      }),
    ]);
    return new Map(seats.map((s) => [s, { seen: seen.get(s), screen: screens.get(s) }]));
  };
}

export function missingReported(runtime: string, screen: string, conversationId: string): boolean {
  const re = runtimeById(runtime)?.missingConversation;
  if (!re) return false;
  const m = re.exec(screen);
  if (!m) return false;
  const named = m.slice(1).find((g) => g !== undefined);
  // The report must be about this conversation; a report naming another id is someone else's problem.
  return named === undefined || named === conversationId;
}

export function tail(text: string, lines = 20): string {
  return text.replace(/\n+$/, '').split('\n').slice(-lines).join('\n');
}

/**
 * A runtime that rewrites its own command line (Pi) cannot name its conversation in its argv; the
 * pane's wrapper, its parent and the pane's own process, still carries the argv it ran the agent
 * with. That is a claim from the pane's lineage, treated like argv (it must settle). A session
 * named by its file (Pi's `--session <path>`) counts by the id in that file's session header.
 */
export function wrapperClaim(
  ports: Pick<Ports, 'io' | 'proc' | 'procOf'>,
  pane: RosterPane,
  runtime: string,
): string | undefined {
  const agent = pane.agent;
  if (!agent) return undefined;
  // Local panes read this machine's table as before; a remote pane reads its host's last scan.
  const local = hostOfServer(pane.server) === 'local';
  const proc = local ? ports.proc : ports.procOf(pane.server);
  const wrapper = proc.read(pane.panePid);
  const me = proc.read(agent.pid);
  if (
    !wrapper ||
    !me ||
    me.ppid !== wrapper.pid ||
    (pane.panePidStart !== undefined && wrapper.startTime !== pane.panePidStart)
  )
    return undefined;
  const i = wrapper.argv.indexOf('rigdesk-seat');
  if (i < 0) return undefined;
  const argv = wrapper.argv.slice(i + 1);
  const adapter = runtimeById(runtime);
  const named = adapter?.conversationFromArgv(argv);
  // A file the argv names (Pi's `--session <file>`, whose session header names the id) is on the
  // pane's machine: this machine's file at that path says nothing of a host's.
  if (named !== undefined || !local) return named;
  return adapter?.conversationFromLaunchArgv?.(argv, ports.io);
}

/** What a launched process must show to count: the exact conversation (resume), or any new one (fork). */
export interface Expectation {
  accept(conversationId: string): boolean;
  /** The id whose "conversation missing" report means: roll back and ask. */
  missingId: string;
}

export const exactly = (conversationId: string): Expectation => ({
  accept: (id) => id === conversationId,
  missingId: conversationId,
});

export interface VerifySources {
  roster: RosterSource;
  observer?: ObserverSource;
}

export async function verifyConversation(
  ports: VerifyPorts,
  live: SessionRow,
  expect: string | Expectation,
  opts: VerifyOptions = DEFAULT_VERIFY,
  sources: RosterSource | VerifySources = sharedRoster(ports),
): Promise<Verdict> {
  const want = typeof expect === 'string' ? exactly(expect) : expect;
  const src: VerifySources = typeof sources === 'function' ? { roster: sources } : sources;
  const observer = src.observer ?? sharedObserver(ports);
  const unwatch = observer.watch(live.seat);
  try {
    return await loop(ports, live, want, opts, src.roster, observer);
  } finally {
    unwatch();
  }
}

async function loop(
  ports: Pick<Ports, 'clock' | 'io' | 'proc' | 'procOf'>,
  live: SessionRow,
  want: Expectation,
  opts: VerifyOptions,
  roster: RosterSource,
  observer: ObserverSource,
): Promise<Verdict> {
  const since = ports.clock.now();
  const deadline = since + opts.timeoutMs;
  let namedSince: number | undefined;
  let named: string | undefined;
  let needSeen = 0;
  let screen = '';
  // When the pane first showed anything: a quiet spell counts from then, since a blank screen is
  // an agent still loading (its dialog, or its "conversation missing", not drawn yet).
  let drawnAt: number | undefined;
  let lastAgentConversation: string | undefined;
  for (;;) {
    const r = await roster(since);
    const pane = paneOf(r, live);
    if (!pane) {
      const listed = serverRunning(r, live.server) !== undefined && !r.problems.some((p) => p.server === live.server);
      if (listed) return { verdict: 'gone' };
    } else {
      const o = await observer.observe(live.seat, r);
      if (o.screen !== undefined) screen = o.screen;
      if (drawnAt === undefined && screen.trim() !== '') drawnAt = ports.clock.now();
      if (missingReported(live.runtime, screen, want.missingId)) return { verdict: 'missing', screen: tail(screen) };
      const agent = pane.agent;
      let claim = agent?.conversationId;
      let source: string | undefined = agent?.conversationSource;
      if (agent && claim === undefined) {
        claim = wrapperClaim(ports, pane, live.runtime);
        if (claim !== undefined) source = 'wrapper_argv';
      }
      lastAgentConversation = claim;
      const seen = agent ? o.seen : undefined;
      const need =
        seen && seen.activity.session === 'present' && seen.activity.needsInput !== 'none'
          ? seen.activity.needsInput
          : undefined;
      // A dialog must be on screen on two reads in a row: a one-frame match is not a dialog.
      needSeen = need ? needSeen + 1 : 0;
      if (need && needSeen >= 2) {
        return {
          verdict: 'attention',
          reason: need,
          screen: tail(screen),
          ...(agent ? { pid: agent.pid } : {}),
          ...(claim ? { conversationId: claim } : {}),
          basis: seen?.activity.basis,
        };
      }
      if (agent && claim !== undefined && want.accept(claim)) {
        if (named !== claim) (named = claim), (namedSince = ports.clock.now());
        const strong = source === 'live_state' || source === 'writer_lock';
        const known = seen !== undefined && evidencedActivity(seen.activity) !== 'unknown';
        const held = ports.clock.now() - namedSince!;
        const quiet = drawnAt !== undefined && ports.clock.now() - Math.max(drawnAt, namedSince!) >= opts.quietMs;
        if (!need && (strong ? known || held >= opts.settleMs : held >= opts.settleMs && (known || quiet))) {
          return { verdict: 'resumed', pid: agent.pid, source: source ?? 'argv', conversationId: claim };
        }
      } else {
        named = undefined;
        namedSince = undefined;
        if (!agent && WRAPPER_EXIT.test(screen)) return { verdict: 'exited', screen: tail(screen) };
      }
    }
    if (ports.clock.now() > deadline)
      return {
        verdict: 'unproven',
        screen: tail(screen),
        ...(lastAgentConversation ? { agentConversation: lastAgentConversation } : {}),
      };
    await ports.clock.sleep(opts.intervalMs);
  }
}
