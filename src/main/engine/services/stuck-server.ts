import type { DoctorCheck, TmuxStuck } from '../../../shared/contract';
import { ownSocketPath } from '../context';
import { liveExec } from '../deps';
import type { Engine } from '../engine';
import { listeners, probeServer, type ServerProbe } from '../tmux/stuck';

/** How long an ended server may take to go before --fix says it did not. */
const GONE_MS = 2_000;
/**
 * A roster slower than this has ps probe the server (a healthy one answers in tens of ms); the
 * probe's bound is shorter than doctor's so ps names a stuck server within 5 s of being asked.
 */
const ROSTER_SLOW_MS = 300;
const PS_PROBE_MS = 1_500;
/** A healthy server answers the held client in milliseconds; a miss falls back to the process probe. */
const HELD_PROBE_MS = 500;

/**
 * doctor's look at the tmux server on Rigdesk's socket before anything else talks to it: a stuck
 * one (tmux/stuck.ts) is named with its pid and the next step, and with `fix` ended, but only when
 * exactly one process is proven to listen on that socket and it is still that one at the kill.
 * The probe runs as its own process (never through the engine's held client, which would wait on
 * the same server). Undefined when the server answers or is not running.
 */
export async function stuckServerCheck(engine: Engine, fix: boolean): Promise<DoctorCheck | undefined> {
  const socket = ownSocketPath(engine.deps);
  const fs = engine.ports.fs;
  const probe = await probeServer(liveExec, socket, fs, engine.deps.env);
  if (probe.state !== 'stuck') return undefined;
  const stuck = describeStuck(socket, probe);
  const detail = stuckLine(stuck);
  if (!fix || probe.pids.length !== 1) return { check: 'tmux server', ok: false, detail, hint: stuck.hint };
  const pid = probe.pids[0]!;
  // Proven again right before the kill: the pid must still hold this socket (never a reused pid).
  if (!listeners(socket, fs).includes(pid))
    return { check: 'tmux server', ok: true, detail: `the stuck server on ${socket} went by itself` };
  try {
    process.kill(pid, 'SIGKILL');
  } catch (e) {
    return { check: 'tmux server', ok: false, detail: `${detail}; ending it failed: ${(e as Error).message}` };
  }
  const gone = await goneWithin(socket, pid, fs, GONE_MS);
  return gone
    ? {
        check: 'tmux server',
        ok: true,
        detail: `ended the stuck server on ${socket} (pid ${pid}); the next up starts a new one`,
      }
    : { check: 'tmux server', ok: false, detail: `${detail}; pid ${pid} did not end within ${GONE_MS} ms` };
}

/** The stuck server as ps, the window and doctor name it: the socket, its pid and the next step. */
export function describeStuck(socket: string, probe: Extract<ServerProbe, { state: 'stuck' }>): TmuxStuck {
  return {
    code: 'TMUX_SERVER_STUCK',
    socket,
    pids: probe.pids,
    why: probe.why,
    hint:
      probe.pids.length === 1
        ? `Run rigdesk doctor --fix to end it (only pid ${probe.pids[0]}), or kill -9 ${probe.pids[0]}; its sessions are lost either way.`
        : 'End the process that holds the socket by hand; Rigdesk ends a server only when one process is proven to hold it.',
  };
}

/** One line naming it: `TMUX_SERVER_STUCK: the server on <socket> (pid N) <why>`. */
export function stuckLine(s: TmuxStuck): string {
  const who = s.pids.length > 0 ? `pid ${s.pids.join(', ')}` : 'no process found holding it';
  return `TMUX_SERVER_STUCK: the server on ${s.socket} (${who}) ${s.why}`;
}

/**
 * ps's bounded look at Rigdesk's own server: only when the roster is slow (a healthy server
 * answers well within ROSTER_SLOW_MS, and then no probe runs), so a stuck server is named within
 * ROSTER_SLOW_MS + PROBE_MS rather than after every tmux command's own time limit.
 */
export async function stuckWhileSlow(engine: Engine, slow: Promise<unknown>): Promise<TmuxStuck | undefined> {
  const done = await Promise.race([
    slow.then(
      () => true,
      () => true,
    ),
    new Promise<false>((r) => setTimeout(() => r(false), ROSTER_SLOW_MS)),
  ]);
  if (done) return undefined;
  // A window's watch (window-hub) that found it stuck just now spares ps a second probe.
  const seen = engine.stuckSeen;
  if (seen && engine.now() - seen.at <= VERDICT_MS) return seen.stuck;
  return probeOwnServer(engine);
}

const VERDICT_MS = 3_000;

/**
 * One bounded probe of Rigdesk's own server, kept on the engine (its close then ends its tmux
 * clients without a detach the server would never answer); the stuck server, or undefined.
 */
/**
 * A resting window's look at Rigdesk's server, without a process when it can: the held client
 * answering a trivial command proves the server answers (a spawned probe cost ~22 ms of CPU here,
 * 1.5 % of a core at one look per 1.5 s). Anything else (no held client, no answer within
 * HELD_PROBE_MS) asks probeOwnServer, whose own process alone can tell a stuck server.
 */
export async function watchOwnServer(engine: Engine): Promise<TmuxStuck | undefined> {
  if ((await engine.own.heldAnswers(HELD_PROBE_MS)) === true) {
    engine.stuckSeen = undefined;
    return undefined;
  }
  return probeOwnServer(engine);
}

export async function probeOwnServer(engine: Engine): Promise<TmuxStuck | undefined> {
  const socket = ownSocketPath(engine.deps);
  const probe = await probeServer(liveExec, socket, engine.ports.fs, engine.deps.env, PS_PROBE_MS);
  const stuck = probe.state === 'stuck' ? describeStuck(socket, probe) : undefined;
  engine.stuckSeen = stuck && { at: engine.now(), stuck };
  return stuck;
}

async function goneWithin(socket: string, pid: number, fs: Engine['ports']['fs'], ms: number): Promise<boolean> {
  const until = Date.now() + ms;
  while (Date.now() < until) {
    if (!listeners(socket, fs).includes(pid)) return true;
    await new Promise((r) => setTimeout(r, 50));
  }
  return false;
}
