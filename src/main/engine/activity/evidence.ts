import type { Ports } from '../ports';
import type { RosterPane } from '../roster/types';
import { runtimeById, type RuntimeAdapter, type ScreenText } from '../runtimes';
import type { SeatRow, SessionRow } from '../store';
import { hostOfServer } from '../tmux/identity';
import type { Evidence } from './decide';
import { readHookEvidence, remoteHookEvidence } from './hooks';

type EvidencePorts = Pick<Ports, 'clock' | 'fs' | 'hosts' | 'io' | 'layout' | 'seatHome'>;

/** A seat whose pane is there, as one look found it. */
interface Present {
  seat: SeatRow;
  live?: SessionRow;
  pane: RosterPane;
}

/**
 * Every kind of evidence of a present seat's activity, in the order the decision weighs them: its
 * process tree (a program with no conversation), its hook, its live-state file, its transcript,
 * then its screen (captured by the caller, one batch per server).
 */
export function seatEvidence(
  ports: EvidencePorts,
  o: Present,
  screen: ScreenText | undefined,
  now: number,
): Evidence[] {
  const adapter = runtimeById(o.seat.runtime);
  const evidence: Evidence[] = [];
  if (adapter && !adapter.conversations) evidence.push(...processEvidence(o.pane, now));
  // A remote pane's files are on its host: this machine's files at the same path say nothing
  // about it (and could mislead), so its activity comes from its screen and roster only.
  const here = hostOfServer(o.pane.server) === 'local';
  if (adapter) evidence.push(...fileEvidence(ports, adapter, o, here, now));
  if (screen && adapter?.readScreen) screenEvidence(adapter, { ...screen, title: o.pane.title }, evidence, now);
  return evidence;
}

/** A program with no conversation: its process tree says whether it works. */
function processEvidence(pane: RosterPane, now: number): Evidence[] {
  const program = pane.lineage[0];
  if (!program || !pane.foreground) return [];
  return [
    {
      source: 'process',
      at: now,
      activity: pane.foreground.pid === program.pid ? 'idle' : 'working',
      detail: `foreground ${pane.foreground.comm}`,
    },
  ];
}

/** What the runtime's own files say: its hook, its live-state file, its transcript's turn events. */
function fileEvidence(
  ports: EvidencePorts,
  adapter: RuntimeAdapter,
  { seat, live, pane }: Present,
  here: boolean,
  now: number,
): Evidence[] {
  const evidence: Evidence[] = [];
  if (adapter.readHook && pane.agent) {
    // A remote seat's hook writes on its host; the host's evidence round read it.
    const hook = here
      ? readHookEvidence(ports, adapter.readHook, seat.seat, pane.agent.conversationId)
      : remoteHookEvidence(adapter.readHook, ports.hosts.hooks.get(seat.seat), pane.agent.conversationId, now);
    if (hook) evidence.push(hook);
  }
  if (adapter.liveStatus && pane.agent) {
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
  if (adapter.transcriptActivity && conv && home && here) {
    try {
      const t = adapter.transcriptActivity(home, conv, ports.io);
      if (t) evidence.push({ source: 'transcript', at: now, activity: t, detail: 'turn events in the transcript' });
    } catch {
      /* unreadable transcript: no claim from it */
    }
  }
  return evidence;
}

/** What the screen says, added to `evidence` (and what it overrules taken out). */
function screenEvidence(
  adapter: Pick<RuntimeAdapter, 'readScreen' | 'idleMarked'>,
  screen: ScreenText,
  evidence: Evidence[],
  now: number,
): void {
  const r = adapter.readScreen!(screen);
  // Claude leaves its live-state file (and last hook) at "busy" after a turn is interrupted
  // at a prompt; an idle mark it draws only when no turn runs (its footer) overrules a
  // stale "working" from either, and a permission its last hook asked for that the screen
  // no longer shows (a prompt answered "no" fires no hook after it).
  if (adapter.idleMarked?.(r)) {
    for (let i = evidence.length - 1; i >= 0; i--) {
      const e = evidence[i]!;
      const staleWork = (e.source === 'live_state' || e.source === 'hook') && e.activity === 'working' && !e.needsInput;
      if (staleWork || (e.source === 'hook' && e.needsInput && !r.needsInput)) evidence.splice(i, 1);
    }
  }
  const e: Evidence = { source: 'screen', at: now, detail: r.matched?.join('; ') };
  if (r.activity) e.activity = r.activity;
  if (r.needsInput) e.needsInput = r.needsInput;
  if (r.draft !== undefined) e.draft = r.draft;
  evidence.push(e);
}
