import type { ChildProcess } from 'node:child_process';
import type { ControlTarget } from './control-target';

/**
 * When the held client acts, as tmux 3.3a needs it. A control client sends its flags first and
 * ends identifying itself some turns of the server's loop later (its stdin and stdout go across as
 * descriptors, each ending a read); tmux only sets up its control state at the end, and a notice
 * written to it before then is a segfault (`control_write` on that missing state): a session made
 * or gone, a client detached, a paste buffer set; the server and every seat on it gone
 * (bench/tmux/identify-crash.sh shows it within a few dozen clients). So a client is not
 * replaced for a slow moment, none is started while a command of the engine's runs one-shot, and a
 * replacement waits until the server has let the client it replaces go.
 */

/**
 * Runs `fn` once the I/O that is ready has been read: a timer that fires after the engine's loop
 * stood still (a long synchronous task, a starved process) must not call an answer late that has
 * been waiting in the pipe all along. Each needless reconnect is a client identifying itself,
 * which tmux 3.3a does not survive while a session comes or goes (it writes a notice to the half
 * made client: a segfault, every seat on the server gone).
 */
export function afterIo(fn: () => void): void {
  setImmediate(fn);
}

/** The longest a replacement waits for a dropped client to be gone (the ChildSet ends it by pid after that). */
const LEAVE_MS = 3_000;
/** How often the server is asked whether it still lists the dropped client. */
const LEAVE_POLL_MS = 50;

/**
 * Resolves once `child` has exited and, given `oneShot`, the server no longer lists it (a one-shot
 * `list-clients`: the server drops a client, and queues its detach notice, on a later turn than
 * the one the client exits on, later still under load), or after LEAVE_MS.
 */
export function leftBy(child: ChildProcess, oneShot?: ControlTarget['oneShot']): Promise<void> {
  const listed = async (pid: number) => {
    if (!oneShot) return false;
    const r = await oneShot(['list-clients', '-F', '#{client_pid}'], { timeoutMs: 1_000 });
    return r.code === 0 && r.stdout.split('\n').includes(String(pid));
  };
  const until = Date.now() + LEAVE_MS;
  return new Promise<void>((done) => {
    // Never what keeps an ending engine's process alive.
    const cap = setTimeout(done, LEAVE_MS).unref();
    const check = async (): Promise<void> => {
      const still = child.pid !== undefined && (await listed(child.pid).catch(() => false));
      if (!still || Date.now() >= until) {
        clearTimeout(cap);
        done();
      } else setTimeout(() => void check(), LEAVE_POLL_MS).unref();
    };
    if (child.exitCode !== null || child.signalCode !== null) void check();
    else child.once('close', () => void check());
  });
}

/** The longest a quiet spell waits for the held client's lines in flight (control.ts quietWhile). */
const QUIET_MS = 2_000;

/** Resolves once `settled()` holds (looked at every 20 ms), or after QUIET_MS. */
export async function settledBy(settled: () => boolean): Promise<void> {
  const until = Date.now() + QUIET_MS;
  while (!settled() && Date.now() < until) await new Promise((r) => setTimeout(r, 20));
}
