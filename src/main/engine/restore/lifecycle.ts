import type { FreshAnswer, FreshPlan, RestartAnswer, RestartPlan } from '../../../shared/contract';
import { fail, type Result } from '../../../shared/errors';
import { checkConversationFree } from '../custody/guard';
import type { Ports } from '../ports';
import { execContext, launchFresh } from './execute';
import { cwdOn } from '../custody/cwd';
import { liveFact, ownPane } from './facts';
import { wrapperClaim, type VerifyOptions } from './verify';
import type { Roster, RosterPane } from '../roster/types';
import { keepsConversations, runtimeById, type RuntimeAdapter } from '../runtimes';
import { scrubIdentity } from '../runtimes/env';
import type { SeatRow, SessionRow } from '../store';
import { movePanePid } from '../store/restore-seats';
import { whichOnPath } from '../runtimes/install';
import { stopSeat } from '../seats/stop';
import { hostGate } from '../hosts/gate';
import { hostUnreachable } from '../hosts/merge';
import { programOnHost } from '../seats/launch-remote';
import { restartInPane, waitGone } from './restart-pane';
import { conversationFamily } from '../runtimes/family';
import type { RestorePorts } from './ports';

/**
 * The seat lifecycle beyond launch/stop: restart on the same conversation (same pane), and a
 * fresh start with a stated reason. Both prove everything they need *before* stopping anything,
 * so a refusal always leaves the seat exactly as it was.
 */

export { gateArgv } from './restart-pane';

export async function restartSeat(
  ports: RestorePorts,
  ref: unknown,
  opts: { plan?: boolean; verify?: Partial<VerifyOptions> } = {},
): Promise<Result<RestartAnswer>> {
  const found = ports.store.rigs.find(ref);
  if (!found.ok) return found;
  const seat = found.seat;
  const adapter = runtimeById(seat.runtime);
  if (!adapter?.canResume)
    return fail('BAD_USAGE', `${seat.seat} runs ${seat.runtime}, which has no conversation to keep`, {
      hint: `Use rigdesk stop and rigdesk launch ${seat.seat}.`,
    });
  const roster = await ports.roster();
  const remote = gateOnHost(ports, seat, roster, 'restart');
  if (remote) return remote;
  const own = ownPane(ports, roster, seat.seat);
  if (own.running !== 'running' || !own.pane || !own.live) {
    return fail(
      own.running === 'unknown' ? 'EVIDENCE_UNREADABLE' : 'SEAT_NOT_RUNNING',
      `${seat.seat} is not running${own.running === 'unknown' ? ' as far as can be told' : ''}; nothing was stopped`,
      { hint: `rigdesk launch ${seat.seat} resumes a stopped seat.` },
    );
  }
  const live = followPane(ports, seat, own.live, own.pane, opts);
  const agent = own.pane.agent;
  // The conversation is proven by the process itself (or, for a runtime that rewrites its own
  // command line, by the pane's wrapper that started it), not by what the store last heard.
  const named = agent?.conversationId ?? (agent ? wrapperClaim(ports, own.pane, seat.runtime) : undefined);
  if (!agent || !named) {
    return fail(
      'CONVERSATION_OWNER_UNKNOWN',
      `no process in ${seat.seat}'s pane names its conversation; nothing was stopped`,
      {
        hint: 'Wait for the agent to start (or use rigdesk fresh with a reason).',
        evidence: { paneId: own.pane.paneId, lineage: own.pane.lineage, storeConversationId: seat.conversationId },
      },
    );
  }
  const cid = named;
  const free = checkConversationFree(
    roster,
    {
      runtime: seat.runtime,
      conversationId: cid,
      cwd: cwdOn(ports.fs, seat),
      home: ports.seatHome(seat),
      allowPids: [agent.pid],
      allowSessionId: live.id,
      host: seat.host,
    },
    ports.store.sessions.liveBoundTo(conversationFamily(seat.runtime), cid),
  );
  if (!free.ok) return free;
  const binary = await programFor(ports, seat, adapter);
  if (!binary.ok) return binary;
  const plan: RestartPlan = {
    seat: seat.seat,
    stop: { sessionId: live.sessionId, paneId: live.paneId, pid: agent.pid },
    launch: 'resume',
    conversationId: cid,
    samePane: true,
  };
  if (opts.plan) return { ok: true, plan };
  return restartInPane(ports, { seat, live, agent, cid, binary: binary.binary, plan }, opts);
}

/**
 * A restart that died between respawning the pane and recording it left the row's pane pid
 * behind; the pane's immutable identity ($session, created, %pane, server pid) still matches, so
 * the row follows its pane before anything is decided on it. A --plan writes nothing: it only
 * reasons with the pane's pid.
 */
function followPane(
  ports: Pick<Ports, 'store'>,
  seat: SeatRow,
  live: SessionRow,
  pane: RosterPane,
  opts: { plan?: boolean },
): SessionRow {
  if (pane.panePid === live.panePid) return live;
  const panePidStart = pane.panePidStart ?? null;
  if (opts.plan) return { ...live, panePid: pane.panePid, panePidStart };
  if (!movePanePid(ports.store, live, pane.panePid, panePidStart)) return live;
  ports.store.restore.event(
    'seat.restart',
    { rig: seat.rig, seat: seat.seat },
    { step: 'pane_pid_followed', paneId: live.paneId, from: live.panePid, to: pane.panePid },
  );
  return ports.store.sessions.get(live.id) ?? live;
}

/** The program the pane will run: on this machine's seat PATH, or on the seat's host in its login PATH. */
async function programFor(
  ports: Pick<Ports, 'env' | 'fs' | 'hosts'>,
  seat: SeatRow,
  adapter: RuntimeAdapter,
): Promise<Result<{ binary: string }>> {
  if (seat.host !== 'local') {
    const host = ports.hosts.get(seat.host);
    if (!host) return fail('HOST_NOT_FOUND', `${seat.seat} runs on host "${seat.host}", which Rigdesk does not know`);
    const found = await programOnHost(host, seat, adapter);
    return found.ok
      ? { ok: true, binary: found.binary }
      : { ...found, message: `${found.message}; nothing was stopped` };
  }
  const seatEnv = { ...scrubIdentity(ports.env), ...seat.env };
  const binary = whichOnPath(seat.command ?? adapter.binary ?? '', seatEnv.PATH, ports.fs);
  if (binary) return { ok: true, binary };
  return fail(
    'RUNTIME_NOT_INSTALLED',
    `${adapter.displayName} is not on the PATH of seat ${seat.seat}; nothing was stopped`,
    {
      evidence: { PATH: seatEnv.PATH ?? '' },
    },
  );
}

export async function freshSeat(
  ports: RestorePorts,
  ref: unknown,
  reason: string,
  opts: { plan?: boolean } = {},
): Promise<Result<FreshAnswer>> {
  const found = ports.store.rigs.find(ref);
  if (!found.ok) return found;
  const seat = found.seat;
  const roster = await ports.roster();
  const remote = gateOnHost(ports, seat, roster, 'fresh');
  if (remote) return remote;
  const own = ownPane(ports, roster, seat.seat);
  if (own.running === 'unknown')
    return fail('EVIDENCE_UNREADABLE', `cannot tell whether ${seat.seat}'s session still runs; nothing was stopped`);
  const previous = own.pane?.agent?.conversationId ?? seat.conversationId ?? undefined;
  // An older conversation still open elsewhere would be orphaned from the seat while someone writes it.
  if (previous && keepsConversations(seat.runtime)) {
    const live = liveFact(ports, roster, seat, previous, own);
    if (live.state !== 'free') {
      return fail(
        live.state === 'owned_elsewhere' ? 'CONVERSATION_LIVE_ELSEWHERE' : live.code,
        `${live.message}; nothing was stopped`,
        { evidence: live.evidence },
      );
    }
  }
  const agent = own.pane?.agent;
  const plan: FreshPlan = {
    seat: seat.seat,
    launch: 'fresh',
    ...(previous ? { previousConversationId: previous } : {}),
    ...(own.pane && own.live
      ? { stop: { sessionId: own.live.sessionId, paneId: own.live.paneId, pid: agent?.pid ?? own.pane.panePid } }
      : {}),
  };
  if (opts.plan) return { ok: true, plan };
  const where = { rig: seat.rig, seat: seat.seat };
  ports.store.restore.event('seat.fresh_with_reason', where, {
    step: 'begin',
    reason,
    previousConversationId: previous ?? null,
  });
  if (own.live) {
    const stopped = await stopSeat(ports, seat.seat);
    if (!stopped.ok) return stopped;
    if (agent && !(await waitGone(ports, own.live.server, agent.pid, agent.startTime)))
      return fail('NOT_REMOVED', `pid ${agent.pid} of ${seat.seat} still runs after its session was removed`);
  }
  const result = await launchFresh(
    ports,
    seat,
    { seat: seat.seat, plan: 'fresh', why: reason },
    execContext(ports, seat.rig, null),
  );
  ports.store.restore.event('seat.fresh_with_reason', where, {
    step: 'end',
    reason,
    outcome: result.outcome,
    conversationId: ('conversationId' in result ? result.conversationId : undefined) ?? null,
    previousConversationId: previous ?? null,
  });
  // Up but at a dialog (trust, login) is a start the person finishes in the pane, not a failure.
  if (result.outcome !== 'fresh' && result.outcome !== 'attention_required')
    return fail('code' in result ? result.code : 'INTERNAL', `${seat.seat}: ${result.why}`, { evidence: { result } });
  return {
    ok: true,
    plan: { ...plan, ...(result.conversationId ? { conversationId: result.conversationId } : {}) },
    result,
  };
}

/** A seat on another host: refused before anything is stopped unless that host is known and answering. */
function gateOnHost(ports: Pick<Ports, 'hosts'>, seat: SeatRow, roster: Roster, what: string) {
  if (seat.host === 'local') return undefined;
  return hostGate(seat, what, {
    known: ports.hosts.get(seat.host) !== undefined,
    unreachable: hostUnreachable(roster, seat.host),
  });
}
