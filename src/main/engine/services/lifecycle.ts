import { fail, type Result } from '../../../shared/errors';
import { resolveStaleReservation } from '../custody/census';
import { checkConversationFree } from '../custody/guard';
import { revalidateTarget } from '../custody/revalidate';
import type { Engine } from '../engine';
import { descendants } from '../proc/lineage';
import { execContext, launchFresh, settleVerdict, type SeatResult } from '../restore/execute';
import { restoreFault } from '../restore/faults';
import { cwdOn, liveFact, ownPane } from '../restore/facts';
import { verifyConversation, wrapperClaim, type VerifyOptions } from '../restore/verify';
import type { RosterAgent } from '../roster/types';
import { runtimeById, type LaunchContext } from '../runtimes';
import { scrubIdentity, wrapForPane } from '../runtimes/env';
import type { SeatRow, SessionRow } from '../store';
import { restoreRepos } from '../store/restore-repos';
import { movePanePid } from '../store/restore-seats';
import { findSeat, whichOnPath } from './resolve';
import { stopSeat } from './stop';
import { hostGate } from '../hosts/unsupported';
import { hostUnreachable } from '../hosts/merge';
import type { Roster } from '../roster/types';
import { programOnHost, remoteUnsupported } from './launch-remote';

/**
 * The seat lifecycle beyond launch/stop: restart on the same conversation (same pane), and a
 * fresh start with a stated reason. Both prove everything they need *before* stopping anything,
 * so a refusal always leaves the seat exactly as it was.
 */

export interface LifecyclePlan {
  seat: string;
  stop?: { sessionId: string; paneId: string; pid: number };
  launch: 'resume' | 'fresh';
  conversationId?: string;
  previousConversationId?: string;
  /** restart: the agent is replaced inside the same pane (same $session, same %pane). */
  samePane?: boolean;
}

/**
 * After exact cleanup the agent gets SIGHUP; its argv and live-state claims last until it is gone.
 * Read on the host the pane's server runs on; a host that does not answer is not "gone".
 */
async function waitGone(engine: Engine, server: string, pid: number, startTime: string, ms = 10_000): Promise<boolean> {
  const deadline = Date.now() + ms;
  for (;;) {
    const p = await engine.procNow(server, pid);
    // A zombie (nobody reaped it yet) has no argv left and writes nothing.
    if (p !== 'unknown' && (!p || p.startTime !== startTime || p.argv.length === 0)) return true;
    if (Date.now() > deadline) return false;
    await engine.deps.clock.sleep(100);
  }
}

export async function restartSeat(
  engine: Engine,
  ref: unknown,
  opts: { plan?: boolean; verify?: Partial<VerifyOptions> } = {},
): Promise<Result<{ plan: LifecyclePlan; result?: SeatResult }>> {
  const found = findSeat(engine, ref);
  if (!found.ok) return found;
  const seat = found.seat;
  const adapter = runtimeById(seat.runtime);
  if (!adapter?.canResume)
    return fail('BAD_USAGE', `${seat.seat} runs ${seat.runtime}, which has no conversation to keep`, {
      hint: `Use rigdesk stop and rigdesk launch ${seat.seat}.`,
    });
  const roster = await engine.roster();
  const remote = gateOnHost(engine, seat, roster, 'restart');
  if (remote) return remote;
  const own = ownPane(engine, roster, seat.seat);
  if (own.running !== 'running' || !own.pane || !own.live) {
    return fail(
      own.running === 'unknown' ? 'EVIDENCE_UNREADABLE' : 'SEAT_NOT_RUNNING',
      `${seat.seat} is not running${own.running === 'unknown' ? ' as far as can be told' : ''}; nothing was stopped`,
      { hint: `rigdesk launch ${seat.seat} resumes a stopped seat.` },
    );
  }
  // A restart that died between respawning the pane and recording it left the row's pane pid
  // behind; the pane's immutable identity ($session, created, %pane, server pid) still matches, so
  // the row follows its pane before anything is decided on it.
  // (A --plan writes nothing: it only reasons with the pane's pid.)
  if (own.pane.panePid !== own.live.panePid) {
    if (opts.plan) own.live = { ...own.live, panePid: own.pane.panePid, panePidStart: own.pane.panePidStart ?? null };
    else if (movePanePid(engine.store, own.live, own.pane.panePid, own.pane.panePidStart ?? null)) {
      restoreRepos(engine.store).event(
        'seat.restart',
        { rig: seat.rig, seat: seat.seat },
        { step: 'pane_pid_followed', paneId: own.live.paneId, from: own.live.panePid, to: own.pane.panePid },
      );
      own.live = engine.store.sessions.get(own.live.id)!;
    }
  }
  const agent = own.pane.agent;
  // The conversation is proven by the process itself (or, for a runtime that rewrites its own
  // command line, by the pane's wrapper that started it), not by what the store last heard.
  const named = agent?.conversationId ?? (agent ? wrapperClaim(engine, own.pane, seat.runtime) : undefined);
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
      cwd: cwdOn(seat),
      home: engine.seatHome(seat),
      allowPids: [agent.pid],
      allowSessionId: own.live.id,
      host: seat.host,
    },
    engine.store.sessions.liveBoundTo(seat.runtime, cid),
  );
  if (!free.ok) return free;
  let binary: string | undefined;
  if (seat.host === 'local') {
    const seatEnv = { ...scrubIdentity(engine.deps.env), ...seat.env };
    binary = whichOnPath(seat.command ?? adapter.binary ?? '', seatEnv.PATH);
    if (!binary)
      return fail(
        'RUNTIME_NOT_INSTALLED',
        `${adapter.displayName} is not on the PATH of seat ${seat.seat}; nothing was stopped`,
        { evidence: { PATH: seatEnv.PATH ?? '' } },
      );
  } else {
    // The program the pane will run is looked up on the seat's host, in its login PATH.
    const found = await programOnHost(engine.hosts.get(seat.host)!, seat, adapter);
    if (!found.ok) return { ...found, message: `${found.message}; nothing was stopped` };
    binary = found.binary;
  }
  const plan: LifecyclePlan = {
    seat: seat.seat,
    stop: { sessionId: own.live.sessionId, paneId: own.live.paneId, pid: agent.pid },
    launch: 'resume',
    conversationId: cid,
    samePane: true,
  };
  if (opts.plan) return { ok: true, plan };
  return restartInPane(engine, seat, own.live, agent, cid, binary, plan, opts);
}

/**
 * Keeps the pane: the agent is replaced in place with `respawn-pane -k`, so the session row keeps
 * its identity ($id, %pane, server) and only its pane pid moves on. Under the seat's reservation
 * (no launch or second restart meanwhile), after revalidating pane, pids and start times. Closing
 * the pane's terminal hangs up the old agent exactly as `stop` does; the new program first waits
 * (in the pane) until every old agent process is gone, so two writers never overlap.
 */
async function restartInPane(
  engine: Engine,
  seat: SeatRow,
  live: SessionRow,
  agent: RosterAgent,
  cid: string,
  binary: string,
  plan: LifecyclePlan,
  opts: { verify?: Partial<VerifyOptions> },
): Promise<Result<{ plan: LifecyclePlan; result?: SeatResult }>> {
  const { store } = engine;
  const adapter = runtimeById(seat.runtime)!;
  const where = { rig: seat.rig, seat: seat.seat };
  const self = engine.deps.proc.read(engine.deps.selfPid);
  const input = {
    seat: seat.seat,
    attempt: engine.deps.newId(),
    holderPid: engine.deps.selfPid,
    holderStart: self?.startTime ?? null,
    server: live.server,
    sessionName: live.sessionName,
    plan: { mode: 'resume' as const, runtime: seat.runtime, conversationId: cid },
  };
  const unchanged = () => {
    const now = store.sessions.live(seat.seat);
    return now && now.id === live.id && now.panePid === live.panePid ? undefined : 'changed';
  };
  let taken = store.reservations.reserve(input, unchanged);
  if (!taken.ok && 'existing' in taken) {
    const census = await resolveStaleReservation(engine, taken.existing, await engine.roster());
    if (!census.ok) return census;
    taken = store.reservations.reserve(input, unchanged);
  }
  if (!taken.ok) {
    if ('refused' in taken)
      return fail('TARGET_CHANGED', `${seat.seat}'s session changed since it was checked; nothing was stopped`);
    return fail(
      'LAUNCH_IN_PROGRESS',
      `${seat.seat} is being launched or restarted by another process (pid ${taken.existing.holderPid}); nothing was stopped`,
      { evidence: { reservation: taken.existing.id } },
    );
  }
  const r = taken.row;
  const abandon = (why: string) => store.reservations.advance(r.id, 'reserved', 'abandoned', { outcome: why });
  // Every process of the old agent (Codex: the node shim and its native binary).
  // Read on the pane's host (a remote host's table as of the roster just taken; revalidated below).
  const snap = engine.procOf(live.server).snapshot();
  const old = [
    { pid: agent.pid, startTime: agent.startTime },
    ...descendants(snap, agent.pid)
      .filter((p) => adapter.matches(p))
      .map((p) => ({ pid: p.pid, startTime: p.startTime })),
  ];
  await restoreFault(engine, 'restart.after_reserved');
  const checked = await revalidateTarget(engine, {
    server: live.server,
    paneId: live.paneId,
    sessionId: live.sessionId,
    serverPid: live.serverPid,
    panePid: live.panePid,
    ...(live.panePidStart ? { panePidStart: live.panePidStart } : {}),
    agent: { pid: agent.pid, startTime: agent.startTime },
  });
  if (!checked.ok) {
    abandon('revalidation failed');
    return { ...checked, message: `${checked.message}; nothing was stopped` };
  }
  restoreRepos(store).event('seat.restart', where, { step: 'begin', ...plan, old, reservation: r.id });
  if (!store.reservations.advance(r.id, 'reserved', 'helper_invoked'))
    return fail('LAUNCH_IN_PROGRESS', `reservation ${r.id} for ${seat.seat} was taken over; nothing was stopped`);

  const ctx: LaunchContext = {
    binary,
    cwd: seat.cwd,
    args: seat.args,
    home: engine.seatHome(seat),
    newId: engine.deps.newId,
  };
  const program = gateArgv(old, wrapForPane(adapter.resumeArgv(ctx, cid)));
  const env = { ...seat.env, RIGDESK_SEAT: seat.seat };
  const client = engine.client(live.server);
  const release = await engine.beforeRespawn(live.server, live.paneId);
  const res = await client
    .run([
      'respawn-pane',
      '-k',
      '-t',
      live.paneId,
      '-c',
      seat.cwd,
      ...Object.entries(env).flatMap(([k, v]) => ['-e', `${k}=${v}`]),
      '--',
      ...program,
      ';',
      'display-message',
      '-p',
      '-t',
      live.paneId,
      '#{pane_pid}',
    ])
    .finally(release);
  const newPid = Number(res.stdout.trim().split('\n').pop());
  if (res.code !== 0 || !Number.isInteger(newPid) || newPid <= 1) {
    store.reservations.advance(r.id, 'helper_invoked', 'abandoned', {
      outcome: `respawn-pane failed: ${res.stderr.trim()}`,
    });
    restoreRepos(store).event('seat.restart', where, {
      step: 'respawn_failed',
      stderr: res.stderr.trim(),
      code: res.code,
    });
    return fail(
      'TMUX_FAILED',
      `tmux respawn-pane failed for ${seat.seat}: ${res.timedOut ? 'timed out' : res.stderr.trim()}; check the pane (rigdesk ps)`,
      { evidence: { paneId: live.paneId } },
    );
  }
  await restoreFault(engine, 'restart.after_respawn');
  const np = await engine.procNow(live.server, newPid);
  const startTime = np && np !== 'unknown' ? np.startTime : null;
  const identity = {
    server: live.server,
    serverPid: live.serverPid,
    sessionId: live.sessionId,
    sessionCreated: live.sessionCreated,
    sessionName: live.sessionName,
    paneId: live.paneId,
    panePid: newPid,
  };
  store.db
    .transaction(() => {
      movePanePid(store, live, newPid, startTime);
      if (live.conversationId !== cid) store.sessions.setConversation(live.id, cid);
      if (seat.conversationId !== cid) store.rigs.setConversation(seat.seat, cid);
      store.reservations.advance(r.id, 'helper_invoked', 'created', { identity });
      restoreRepos(store).event('seat.restart', where, {
        step: 'respawned',
        paneId: live.paneId,
        sessionId: live.sessionId,
        panePid: newPid,
        previousPanePid: live.panePid,
      });
    })
    .immediate();
  const gone = await Promise.all(old.map((p) => waitGone(engine, live.server, p.pid, p.startTime)));
  const updated = store.sessions.get(live.id)!;
  let result: SeatResult;
  if (gone.includes(false)) {
    result = {
      seat: seat.seat,
      plan: 'resume',
      outcome: 'failed',
      code: 'NOT_REMOVED',
      why: `the old agent (pid ${old.map((p) => p.pid).join(', ')}) still runs after its terminal was closed; the new one waits in the pane and will not start while it does`,
      paneId: live.paneId,
      sessionId: live.sessionId,
      conversationId: cid,
    };
  } else {
    const ectx = execContext(engine, seat.rig, null, opts.verify);
    const v = await verifyConversation(engine, updated, cid, ectx.verify, ectx);
    result = await settleVerdict(
      engine,
      { ...seat, conversationId: cid },
      updated,
      cid,
      v,
      ectx,
      { seat: seat.seat, plan: 'resume', why: 'restart --keep-conversation' },
      'resumed',
    );
  }
  store.reservations.advance(r.id, 'created', 'released', { outcome: `restart: ${result.outcome}` });
  restoreRepos(store).event('seat.restart', where, {
    step: 'end',
    outcome: result.outcome,
    conversationId: cid,
    paneId: live.paneId,
    sessionId: live.sessionId,
    panePid: newPid,
  });
  if (result.outcome !== 'resumed' && result.outcome !== 'attention_required') {
    return fail((result.code ?? 'INTERNAL') as never, `${seat.seat} did not come back on ${cid}: ${result.why}`, {
      evidence: { result },
    });
  }
  return { ok: true, plan, result };
}

/**
 * The pane's new program waits until every old agent process (pid + start time) is gone, a zombie
 * counting as gone, then execs the seat's wrapper. If one outlives 30 s it does not start a second
 * writer: it says so and leaves a shell.
 */
const GATE = [
  'for ps in $1; do',
  '  pid=${ps%%:*}; st=${ps#*:}; n=0',
  '  while s=$(cat /proc/$pid/stat 2>/dev/null); do',
  '    f=$(printf "%s\\n" "${s##*) }" | cut -d" " -f1,20)',
  '    [ "${f#* }" = "$st" ] || break',
  '    case "${f%% *}" in Z|X|x) break;; esac',
  '    n=$((n+1))',
  '    if [ $n -gt 300 ]; then printf "\\n[rigdesk] pid %s still runs; not starting a second writer\\n" "$pid"; exec "${SHELL:-/bin/sh}"; fi',
  '    sleep 0.1',
  '  done',
  'done',
  'shift',
  'exec "$@"',
].join('\n');

export function gateArgv(old: readonly { pid: number; startTime: string }[], paneArgv: string[]): string[] {
  return ['/bin/sh', '-c', GATE, 'rigdesk-gate', old.map((p) => `${p.pid}:${p.startTime}`).join(' '), ...paneArgv];
}

export async function freshSeat(
  engine: Engine,
  ref: unknown,
  reason: string,
  opts: { plan?: boolean } = {},
): Promise<Result<{ plan: LifecyclePlan; result?: SeatResult }>> {
  const found = findSeat(engine, ref);
  if (!found.ok) return found;
  const seat = found.seat;
  const roster = await engine.roster();
  const remote = gateOnHost(engine, seat, roster, 'fresh');
  if (remote) return remote;
  const own = ownPane(engine, roster, seat.seat);
  if (own.running === 'unknown')
    return fail('EVIDENCE_UNREADABLE', `cannot tell whether ${seat.seat}'s session still runs; nothing was stopped`);
  const previous = own.pane?.agent?.conversationId ?? seat.conversationId ?? undefined;
  // An older conversation still open elsewhere would be orphaned from the seat while someone writes it.
  if (previous && seat.runtime !== 'shell') {
    const live = liveFact(engine, roster, seat, previous, own);
    if (live.state !== 'free') {
      return fail(
        live.state === 'owned_elsewhere' ? 'CONVERSATION_LIVE_ELSEWHERE' : (live.code as 'EVIDENCE_UNREADABLE'),
        `${live.message}; nothing was stopped`,
        { evidence: live.evidence },
      );
    }
  }
  const agent = own.pane?.agent;
  const plan: LifecyclePlan = {
    seat: seat.seat,
    launch: 'fresh',
    ...(previous ? { previousConversationId: previous } : {}),
    ...(own.pane && own.live
      ? { stop: { sessionId: own.live.sessionId, paneId: own.live.paneId, pid: agent?.pid ?? own.pane.panePid } }
      : {}),
  };
  if (opts.plan) return { ok: true, plan };
  const where = { rig: seat.rig, seat: seat.seat };
  restoreRepos(engine.store).event('seat.fresh_with_reason', where, {
    step: 'begin',
    reason,
    previousConversationId: previous ?? null,
  });
  if (own.live) {
    const stopped = await stopSeat(engine, seat.seat);
    if (!stopped.ok) return stopped;
    if (agent && !(await waitGone(engine, own.live.server, agent.pid, agent.startTime)))
      return fail('NOT_REMOVED', `pid ${agent.pid} of ${seat.seat} still runs after its session was removed`);
  }
  const result = await launchFresh(
    engine,
    seat,
    { seat: seat.seat, plan: 'fresh', why: reason },
    execContext(engine, seat.rig, null),
  );
  restoreRepos(engine.store).event('seat.fresh_with_reason', where, {
    step: 'end',
    reason,
    outcome: result.outcome,
    conversationId: result.conversationId ?? null,
    previousConversationId: previous ?? null,
  });
  // Up but at a dialog (trust, login) is a start the person finishes in the pane, not a failure.
  if (result.outcome !== 'fresh' && result.outcome !== 'attention_required')
    return fail((result.code ?? 'INTERNAL') as never, `${seat.seat}: ${result.why}`, { evidence: { result } });
  return {
    ok: true,
    plan: { ...plan, ...(result.conversationId ? { conversationId: result.conversationId } : {}) },
    result,
  };
}

/** A seat on another host: refused before anything is stopped unless that host is known and answering. */
function gateOnHost(engine: Engine, seat: SeatRow, roster: Roster, what: string) {
  if (seat.host === 'local') return undefined;
  return hostGate(seat, what, {
    known: engine.hosts.get(seat.host) !== undefined,
    unreachable: hostUnreachable(roster, seat.host),
    runtimeUnsupported: remoteUnsupported(seat.runtime),
  });
}
