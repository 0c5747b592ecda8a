import type { Engine } from '../engine';
import type { Roster } from '../roster/types';
import { runtimeById } from '../runtimes';
import type { SessionRow } from '../store';

/**
 * "A resume counts only when a process in the pane's lineage names the exact conversation"
 * (design.md invariant 7). Argv names the id the moment the process starts, before the runtime
 * has looked for the conversation, so an argv claim must hold for a settle time with no
 * "conversation missing" report on screen; a live-state file or writer lock (written once the
 * runtime has opened it) counts at once.
 */

export interface VerifyOptions {
  timeoutMs: number;
  settleMs: number;
  intervalMs: number;
}

export const DEFAULT_VERIFY: VerifyOptions = { timeoutMs: 30_000, settleMs: 1500, intervalMs: 200 };

export type Verdict =
  | { verdict: 'resumed'; pid: number; source: string }
  | { verdict: 'missing'; screen: string }
  | { verdict: 'exited'; screen: string }
  | { verdict: 'gone' }
  | { verdict: 'unproven'; screen: string; agentConversation?: string };

/** The pane wrapper's own line when the agent leaves (runtimes/env.ts PANE_WRAPPER). */
const WRAPPER_EXIT = /\[rigdesk\] \S+ exited with status (\d+)/;

/**
 * One roster shared by every seat verifying at the same moment: O(1) spawns per tick, not per
 * seat. A caller passes `notBefore` (when its own launch finished): a roster begun earlier cannot
 * show its pane and would read as "gone".
 */
export type RosterSource = (notBefore?: number) => Promise<Roster>;

export function sharedRoster(engine: Engine, maxAgeMs = 150): RosterSource {
  let at = 0;
  let current: Promise<Roster> | undefined;
  return (notBefore = 0) => {
    const t = Date.now();
    if (!current || t - at > maxAgeMs || at < notBefore) {
      at = t;
      current = engine.roster();
    }
    return current;
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

export async function verifyConversation(engine: Engine, live: SessionRow, conversationId: string, opts: VerifyOptions = DEFAULT_VERIFY, roster: RosterSource = sharedRoster(engine)): Promise<Verdict> {
  const since = Date.now();
  const client = engine.client(live.server);
  const deadline = Date.now() + opts.timeoutMs;
  let namedSince: number | undefined;
  let screen = '';
  let lastAgentConversation: string | undefined;
  for (;;) {
    const r = await roster(since);
    const pane = engine.paneOf(r, live);
    if (!pane) {
      const listed = engine.serverRunning(r, live.server) !== undefined && !r.problems.some((p) => p.server === live.server);
      if (listed) return { verdict: 'gone' };
    } else {
      const cap = await client.capture(pane.paneId, 200);
      if (cap.ok) screen = cap.text;
      if (missingReported(live.runtime, screen, conversationId)) return { verdict: 'missing', screen: tail(screen) };
      const agent = pane.agent;
      lastAgentConversation = agent?.conversationId;
      if (agent && agent.conversationId === conversationId) {
        if (agent.conversationSource === 'live_state' || agent.conversationSource === 'writer_lock') return { verdict: 'resumed', pid: agent.pid, source: agent.conversationSource };
        namedSince ??= Date.now();
        if (Date.now() - namedSince >= opts.settleMs) return { verdict: 'resumed', pid: agent.pid, source: agent.conversationSource ?? 'argv' };
      } else {
        namedSince = undefined;
        if (!agent && WRAPPER_EXIT.test(screen)) return { verdict: 'exited', screen: tail(screen) };
      }
    }
    if (Date.now() > deadline) return { verdict: 'unproven', screen: tail(screen), ...(lastAgentConversation ? { agentConversation: lastAgentConversation } : {}) };
    await engine.deps.clock.sleep(opts.intervalMs);
  }
}
