import { fail, type Result } from '../../../shared/errors';
import { checkConversationFree } from '../custody/guard';
import type { Engine } from '../engine';
import { execContext, launchFresh, type SeatResult, launchResume } from '../restore/execute';
import { liveFact, ownPane, realOrSame } from '../restore/facts';
import type { VerifyOptions } from '../restore/verify';
import { runtimeById } from '../runtimes';
import { restoreRepos } from '../store/restore-repos';
import { findSeat } from './resolve';
import { stopSeat } from './stop';

/**
 * The seat lifecycle beyond launch/stop: restart on the same conversation, and a fresh start
 * with a stated reason. Both prove everything they need *before* stopping anything, so a refusal
 * always leaves the seat exactly as it was.
 */

export interface LifecyclePlan {
  seat: string;
  stop?: { sessionId: string; paneId: string; pid: number };
  launch: 'resume' | 'fresh';
  conversationId?: string;
  previousConversationId?: string;
}

/** After exact cleanup the agent gets SIGHUP; its argv and live-state claims last until it is gone. */
async function waitGone(engine: Engine, pid: number, startTime: string, ms = 10_000): Promise<boolean> {
  const deadline = Date.now() + ms;
  for (;;) {
    const p = engine.deps.proc.read(pid);
    // A zombie (nobody reaped it yet) has no argv left and writes nothing.
    if (!p || p.startTime !== startTime || p.argv.length === 0) return true;
    if (Date.now() > deadline) return false;
    await engine.deps.clock.sleep(100);
  }
}

export async function restartSeat(engine: Engine, ref: unknown, opts: { plan?: boolean; verify?: Partial<VerifyOptions> } = {}): Promise<Result<{ plan: LifecyclePlan; result?: SeatResult }>> {
  const found = findSeat(engine, ref);
  if (!found.ok) return found;
  const seat = found.seat;
  const adapter = runtimeById(seat.runtime);
  if (!adapter?.canResume) return fail('BAD_USAGE', `${seat.seat} runs ${seat.runtime}, which has no conversation to keep`, { hint: `Use rigdesk stop and rigdesk launch ${seat.seat}.` });
  const roster = await engine.roster();
  const own = ownPane(engine, roster, seat.seat);
  if (own.running !== 'running' || !own.pane || !own.live) {
    return fail(own.running === 'unknown' ? 'EVIDENCE_UNREADABLE' : 'SEAT_NOT_RUNNING', `${seat.seat} is not running${own.running === 'unknown' ? ' as far as can be told' : ''}; nothing was stopped`, { hint: `rigdesk launch ${seat.seat} resumes a stopped seat.` });
  }
  const agent = own.pane.agent;
  // The conversation is proven by the process itself, not by what the store last heard.
  if (!agent || !agent.conversationId) {
    return fail('CONVERSATION_OWNER_UNKNOWN', `no process in ${seat.seat}'s pane names its conversation; nothing was stopped`, {
      hint: 'Wait for the agent to start (or use rigdesk fresh with a reason).',
      evidence: { paneId: own.pane.paneId, lineage: own.pane.lineage, storeConversationId: seat.conversationId },
    });
  }
  const cid = agent.conversationId;
  const free = checkConversationFree(roster, { runtime: seat.runtime, conversationId: cid, cwd: realOrSame(seat.cwd), home: engine.seatHome(seat), allowPids: [agent.pid], allowSessionId: own.live.id },
    engine.store.sessions.liveBoundTo(seat.runtime, cid));
  if (!free.ok) return free;
  const plan: LifecyclePlan = { seat: seat.seat, stop: { sessionId: own.live.sessionId, paneId: own.live.paneId, pid: agent.pid }, launch: 'resume', conversationId: cid };
  if (opts.plan) return { ok: true, plan };

  const where = { rig: seat.rig, seat: seat.seat };
  restoreRepos(engine.store).event('seat.restart', where, { step: 'begin', ...plan });
  const stopped = await stopSeat(engine, seat.seat);
  if (!stopped.ok) return stopped;
  if (!(await waitGone(engine, agent.pid, agent.startTime))) {
    return fail('NOT_REMOVED', `${seat.seat}'s session was removed but pid ${agent.pid} still runs; not relaunching on its conversation`, { evidence: { pid: agent.pid } });
  }
  if (seat.conversationId !== cid) engine.store.rigs.setConversation(seat.seat, cid);
  const result = await launchResume(engine, { ...seat, conversationId: cid }, cid, execContext(engine, seat.rig, null, opts.verify), { seat: seat.seat, plan: 'resume', why: 'restart --keep-conversation' });
  restoreRepos(engine.store).event('seat.restart', where, { step: 'end', outcome: result.outcome, conversationId: cid, paneId: result.paneId });
  if (result.outcome !== 'resumed') return fail(result.code as never ?? 'INTERNAL', `${seat.seat} was stopped but did not come back on ${cid}: ${result.why}`, { evidence: { result } });
  return { ok: true, plan, result };
}

export async function freshSeat(engine: Engine, ref: unknown, reason: string, opts: { plan?: boolean } = {}): Promise<Result<{ plan: LifecyclePlan; result?: SeatResult }>> {
  const found = findSeat(engine, ref);
  if (!found.ok) return found;
  const seat = found.seat;
  const roster = await engine.roster();
  const own = ownPane(engine, roster, seat.seat);
  if (own.running === 'unknown') return fail('EVIDENCE_UNREADABLE', `cannot tell whether ${seat.seat}'s session still runs; nothing was stopped`);
  const previous = own.pane?.agent?.conversationId ?? seat.conversationId ?? undefined;
  // An older conversation still open elsewhere would be orphaned from the seat while someone writes it.
  if (previous && seat.runtime !== 'shell') {
    const live = liveFact(engine, roster, seat, previous, own);
    if (live.state !== 'free') {
      return fail(live.state === 'owned_elsewhere' ? 'CONVERSATION_LIVE_ELSEWHERE' : (live.code as 'EVIDENCE_UNREADABLE'), `${live.message}; nothing was stopped`, { evidence: live.evidence });
    }
  }
  const agent = own.pane?.agent;
  const plan: LifecyclePlan = {
    seat: seat.seat, launch: 'fresh', ...(previous ? { previousConversationId: previous } : {}),
    ...(own.pane && own.live ? { stop: { sessionId: own.live.sessionId, paneId: own.live.paneId, pid: agent?.pid ?? own.pane.panePid } } : {}),
  };
  if (opts.plan) return { ok: true, plan };
  const where = { rig: seat.rig, seat: seat.seat };
  restoreRepos(engine.store).event('seat.fresh_with_reason', where, { step: 'begin', reason, previousConversationId: previous ?? null });
  if (own.live) {
    const stopped = await stopSeat(engine, seat.seat);
    if (!stopped.ok) return stopped;
    if (agent && !(await waitGone(engine, agent.pid, agent.startTime))) return fail('NOT_REMOVED', `pid ${agent.pid} of ${seat.seat} still runs after its session was removed`);
  }
  const result = await launchFresh(engine, seat, { seat: seat.seat, plan: 'fresh', why: reason });
  restoreRepos(engine.store).event('seat.fresh_with_reason', where, { step: 'end', reason, outcome: result.outcome, conversationId: result.conversationId ?? null, previousConversationId: previous ?? null });
  if (result.outcome !== 'fresh') return fail((result.code ?? 'INTERNAL') as never, `${seat.seat}: ${result.why}`, { evidence: { result } });
  return { ok: true, plan: { ...plan, ...(result.conversationId ? { conversationId: result.conversationId } : {}) }, result };
}
