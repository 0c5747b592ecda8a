import type { Ports } from '../ports';
import { bindDiscoveredConversations } from '../seats/bind';
import type { SeatRow, SessionRow } from '../store';
import { type ObserverSource, type RosterSource, tail, type VerifyOptions, WRAPPER_EXIT } from './verify';
import { paneOf, serverRunning } from '../roster/lookup';

/** The first moments of an agent started fresh (./execute.ts launchFresh): started, at a dialog, or gone. */

export type StartWatch =
  | { outcome: 'fresh'; conversationId?: string; evidence?: { screenState: 'unknown'; agentSeen?: boolean } }
  | { outcome: 'attention_required'; reason: string; screen: string }
  | { outcome: 'failed'; code: 'AGENT_EXITED' | 'SEAT_NOT_RUNNING'; why: string; screen: string };

/**
 * Watches a freshly started agent until its screen shows it idle or working (started), a dialog
 * on two reads in a row (attention), or it exits. A screen that shows neither counts as started
 * after `quietMs` with the agent present. A conversation the agent proves (writer lock, live
 * state) is bound to the seat on the way.
 */
export async function watchStart(
  ports: Pick<Ports, 'clock' | 'store'>,
  seat: SeatRow,
  live: SessionRow,
  ctx: { verify: VerifyOptions; roster: RosterSource; observer: ObserverSource },
): Promise<StartWatch> {
  const since = ports.clock.now();
  const deadline = since + ctx.verify.timeoutMs;
  const unwatch = ctx.observer.watch(seat.seat);
  let agentSince: number | undefined;
  let needSeen = 0;
  let screen = '';
  let bound: string | undefined;
  try {
    for (;;) {
      const r = await ctx.roster(since);
      const pane = paneOf(r, live);
      if (!pane) {
        const listed = serverRunning(r, live.server) !== undefined && !r.problems.some((p) => p.server === live.server);
        if (listed)
          return {
            outcome: 'failed',
            code: 'SEAT_NOT_RUNNING',
            why: "the seat's session vanished right after it started",
            screen,
          };
      } else {
        const o = await ctx.observer.observe(seat.seat, r);
        const a = o.seen?.activity;
        if (o.screen !== undefined) screen = tail(o.screen);
        const claim = pane.agent?.conversationId;
        if (
          claim &&
          (pane.agent!.conversationSource === 'writer_lock' || pane.agent!.conversationSource === 'live_state') &&
          ports.store.sessions.get(live.id)?.conversationId !== claim
        ) {
          bindDiscoveredConversations(ports, r);
          if (ports.store.sessions.get(live.id)?.conversationId === claim) bound = claim;
        }
        // Before the wrapper has started the agent the pane reads "exited" too; only its exit line says so.
        if (!pane.agent && WRAPPER_EXIT.test(screen))
          return {
            outcome: 'failed',
            code: 'AGENT_EXITED',
            why: 'the agent exited right after it started; the pane is kept',
            screen,
          };
        const need = a?.session === 'present' && a.needsInput !== 'none' ? a.needsInput : undefined;
        needSeen = need ? needSeen + 1 : 0;
        if (need && needSeen >= 2) return { outcome: 'attention_required', reason: need, screen };
        if (pane.agent) agentSince ??= ports.clock.now();
        if (!need && a?.session === 'present' && (a.activity === 'idle' || a.activity === 'working'))
          return { outcome: 'fresh', ...(bound ? { conversationId: bound } : {}) };
        if (!need && agentSince !== undefined && ports.clock.now() - agentSince >= ctx.verify.quietMs)
          return {
            outcome: 'fresh',
            ...(bound ? { conversationId: bound } : {}),
            evidence: { screenState: 'unknown' },
          };
      }
      if (ports.clock.now() > deadline)
        return { outcome: 'fresh', evidence: { screenState: 'unknown', agentSeen: agentSince !== undefined } };
      await ports.clock.sleep(ctx.verify.intervalMs);
    }
  } finally {
    unwatch();
  }
}
