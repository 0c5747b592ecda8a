import type { RestartAnswer, RestartPlan, SeatResult } from '../../../shared/contract';
import { fail, type Result } from '../../../shared/errors';
import { resolveStaleReservation } from '../custody/census';
import { revalidateTarget } from '../custody/revalidate';
import type { Ports } from '../ports';
import { descendants } from '../proc/lineage';
import { execContext, settleVerdict } from './execute';
import { atFault } from '../faults';
import { verifyConversation, type VerifyOptions } from './verify';
import type { RosterAgent } from '../roster/types';
import { runtimeById } from '../runtimes';
import { launchContext } from '../seats/launch-context';
import { wrapForPane } from '../runtimes/env';
import type { ReservationRow, SeatRow, SessionRow } from '../store';
import { movePanePid } from '../store/restore-seats';
import { untilTakenUp } from '../seats/taking-up';
import { formatLiteral } from '../tmux/quote';
import type { RestorePorts } from './ports';

/**
 * `restart --keep-conversation` once everything is proven (./lifecycle.ts): the agent is replaced
 * inside its own pane, under the seat's reservation, and the new process must name the same
 * conversation before the restart counts.
 */

/**
 * After exact cleanup the agent gets SIGHUP; its argv and live-state claims last until it is gone.
 * Read on the host the pane's server runs on; a host that does not answer is not "gone".
 */
export async function waitGone(
  ports: Pick<Ports, 'clock' | 'procNow'>,
  server: string,
  pid: number,
  startTime: string,
  ms = 10_000,
): Promise<boolean> {
  const deadline = ports.clock.now() + ms;
  for (;;) {
    const p = await ports.procNow(server, pid);
    // A zombie (nobody reaped it yet) has no argv left and writes nothing.
    if (p !== 'unknown' && (!p || p.startTime !== startTime || p.argv.length === 0)) return true;
    if (ports.clock.now() > deadline) return false;
    await ports.clock.sleep(100);
  }
}

interface Restart {
  seat: SeatRow;
  live: SessionRow;
  agent: RosterAgent;
  cid: string;
  binary: string;
  plan: RestartPlan;
}

/**
 * Keeps the pane: the agent is replaced in place with `respawn-pane -k`, so the session row keeps
 * its identity ($id, %pane, server) and only its pane pid moves on. Under the seat's reservation
 * (no launch or second restart meanwhile), after revalidating pane, pids and start times. Closing
 * the pane's terminal hangs up the old agent exactly as `stop` does; the new program first waits
 * (in the pane) until every old agent process is gone, so two writers never overlap.
 */
export async function restartInPane(
  ports: RestorePorts,
  r: Restart,
  opts: { verify?: Partial<VerifyOptions> },
): Promise<Result<RestartAnswer>> {
  const loaded = await untilTakenUp(ports, r.seat, r.cid);
  if (!loaded.ok) return loaded;
  const taken = await reserve(ports, r);
  if (!taken.ok) return taken;
  const respawned = await respawn(ports, r, taken.row);
  if (!respawned.ok) return respawned;
  const result = await settle(ports, r, taken.row, respawned, opts);
  if (result.outcome !== 'resumed' && result.outcome !== 'attention_required') {
    return fail(
      'code' in result ? result.code : 'INTERNAL',
      `${r.seat.seat} did not come back on ${r.cid}: ${result.why}`,
      {
        evidence: { result },
      },
    );
  }
  return { ok: true, plan: r.plan, result };
}

/** The seat's reservation, settling a stale one by census first; refused when the session moved. */
async function reserve(
  ports: Pick<Ports, 'newId' | 'proc' | 'roster' | 'selfPid' | 'store'>,
  { seat, live, cid }: Restart,
): Promise<Result<{ row: ReservationRow }>> {
  const { store } = ports;
  const self = ports.proc.read(ports.selfPid);
  const input = {
    seat: seat.seat,
    attempt: ports.newId(),
    holderPid: ports.selfPid,
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
    const census = await resolveStaleReservation(ports, taken.existing, await ports.roster());
    if (!census.ok) return census;
    taken = store.reservations.reserve(input, unchanged);
  }
  if (taken.ok) return { ok: true, row: taken.row };
  if ('refused' in taken)
    return fail('TARGET_CHANGED', `${seat.seat}'s session changed since it was checked; nothing was stopped`);
  return fail(
    'LAUNCH_IN_PROGRESS',
    `${seat.seat} is being launched or restarted by another process (pid ${taken.existing.holderPid}); nothing was stopped`,
    { evidence: { reservation: taken.existing.id } },
  );
}

/** Revalidates the pane and its agent, then replaces the agent in place; answers the pane's new pid. */
async function respawn(
  ports: RestorePorts,
  { seat, live, agent, cid, binary, plan }: Restart,
  r: ReservationRow,
): Promise<Result<{ newPid: number; old: { pid: number; startTime: string }[] }>> {
  const { store } = ports;
  const adapter = runtimeById(seat.runtime);
  if (!adapter) return fail('RUNTIME_UNKNOWN', `seat ${seat.seat} names runtime "${seat.runtime}"`);
  const where = { rig: seat.rig, seat: seat.seat };
  const abandon = (why: string) => store.reservations.advance(r.id, 'reserved', 'abandoned', { outcome: why });
  // Every process of the old agent (Codex: the node shim and its native binary).
  // Read on the pane's host (a remote host's table as of the roster just taken; revalidated below).
  const snap = ports.procOf(live.server).snapshot();
  const old = [
    { pid: agent.pid, startTime: agent.startTime },
    ...descendants(snap, agent.pid)
      .filter((p) => adapter.matches(p))
      .map((p) => ({ pid: p.pid, startTime: p.startTime })),
  ];
  await atFault(ports.faults, 'restart.after_reserved');
  const checked = await revalidateTarget(ports, {
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
  ports.store.restore.event('seat.restart', where, { step: 'begin', ...plan, old, reservation: r.id });
  if (!store.reservations.advance(r.id, 'reserved', 'helper_invoked'))
    return fail('LAUNCH_IN_PROGRESS', `reservation ${r.id} for ${seat.seat} was taken over; nothing was stopped`);

  const ctx = launchContext(ports, seat, binary);
  const program = gateArgv(old, wrapForPane(adapter.resumeArgv(ctx, cid)));
  const env = { ...seat.env, RIGDESK_SEAT: seat.seat };
  const release = await ports.beforeRespawn(live.server, live.paneId);
  const res = await ports
    .client(live.server)
    .runSealed(respawnArgs(live.paneId, seat.cwd, env, program))
    .finally(release);
  const newPid = Number(res.stdout.trim().split('\n').pop());
  if (res.code === 0 && Number.isInteger(newPid) && newPid > 1) return { ok: true, newPid, old };
  store.reservations.advance(r.id, 'helper_invoked', 'abandoned', {
    outcome: `respawn-pane failed: ${res.stderr.trim()}`,
  });
  ports.store.restore.event('seat.restart', where, {
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

/**
 * Replaces the pane's program in place (`-k`), and prints the pane's new pid in the same tmux call.
 * `-c` is a format to tmux, written to give back the folder as it is; the env never goes in an argv
 * (runSealed).
 */
function respawnArgs(paneId: string, cwd: string, env: Record<string, string>, program: string[]): string[] {
  return [
    'respawn-pane',
    '-k',
    '-t',
    paneId,
    '-c',
    formatLiteral(cwd),
    ...Object.entries(env).flatMap(([k, v]) => ['-e', `${k}=${v}`]),
    '--',
    ...program,
    ';',
    'display-message',
    '-p',
    '-t',
    paneId,
    '#{pane_pid}',
  ];
}

/** Records the pane's new pid, waits for every old process to go, then proves the conversation. */
async function settle(
  ports: RestorePorts,
  { seat, live, cid }: Restart,
  r: ReservationRow,
  { newPid, old }: { newPid: number; old: readonly { pid: number; startTime: string }[] },
  opts: { verify?: Partial<VerifyOptions> },
): Promise<SeatResult> {
  const { store } = ports;
  const where = { rig: seat.rig, seat: seat.seat };
  await atFault(ports.faults, 'restart.after_respawn');
  const np = await ports.procNow(live.server, newPid);
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
      ports.store.restore.event('seat.restart', where, {
        step: 'respawned',
        paneId: live.paneId,
        sessionId: live.sessionId,
        panePid: newPid,
        previousPanePid: live.panePid,
      });
    })
    .immediate();
  const gone = await Promise.all(old.map((p) => waitGone(ports, live.server, p.pid, p.startTime)));
  const updated = store.sessions.get(live.id);
  const base = { seat: seat.seat, plan: 'resume' as const, paneId: live.paneId, sessionId: live.sessionId };
  let result: SeatResult;
  if (gone.includes(false)) {
    result = {
      ...base,
      outcome: 'failed',
      code: 'NOT_REMOVED',
      why: `the old agent (pid ${old.map((p) => p.pid).join(', ')}) still runs after its terminal was closed; the new one waits in the pane and will not start while it does`,
      conversationId: cid,
    };
  } else if (!updated) {
    result = {
      ...base,
      outcome: 'failed',
      code: 'TARGET_CHANGED',
      why: "the seat's session row changed under the restart",
    };
  } else {
    const ectx = execContext(ports, seat.rig, null, opts.verify);
    const v = await verifyConversation(ports, updated, cid, ectx.verify, ectx);
    result = await settleVerdict(
      ports,
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
  ports.store.restore.event('seat.restart', where, {
    step: 'end',
    outcome: result.outcome,
    conversationId: cid,
    paneId: live.paneId,
    sessionId: live.sessionId,
    panePid: newPid,
  });
  return result;
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
