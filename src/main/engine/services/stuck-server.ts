import type { DoctorCheck } from '../../../shared/contract';
import { ownSocketPath } from '../context';
import { liveExec } from '../deps';
import type { Engine } from '../engine';
import { listeners, probeServer } from '../tmux/stuck';

/** How long an ended server may take to go before --fix says it did not. */
const GONE_MS = 2_000;

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
  const who = probe.pids.length > 0 ? `pid ${probe.pids.join(', ')}` : 'no process found holding it';
  const detail = `TMUX_SERVER_STUCK: the server on ${socket} (${who}) ${probe.why}`;
  if (!fix || probe.pids.length !== 1)
    return {
      check: 'tmux server',
      ok: false,
      detail,
      hint:
        probe.pids.length === 1
          ? `Run rigdesk doctor --fix to end it (only pid ${probe.pids[0]}), or kill -9 ${probe.pids[0]}; its sessions are lost either way.`
          : 'End the process that holds the socket by hand; Rigdesk ends a server only when one process is proven to hold it.',
    };
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

async function goneWithin(socket: string, pid: number, fs: Engine['ports']['fs'], ms: number): Promise<boolean> {
  const until = Date.now() + ms;
  while (Date.now() < until) {
    if (!listeners(socket, fs).includes(pid)) return true;
    await new Promise((r) => setTimeout(r, 50));
  }
  return false;
}
