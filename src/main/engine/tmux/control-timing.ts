import type { ChildProcess } from 'node:child_process';

/**
 * When the held client acts, as tmux 3.3a needs it: every new control client identifies itself to
 * the server, and a notice sent to a client half way through that (a session made or gone, a client
 * detached) is a segfault there, every seat on the server gone. So a client is not replaced for
 * a slow moment, and a replacement waits for the client it replaces to be gone: the server tells
 * every control client that one detached.
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

/** The longest a replacement waits for a dropped client to exit (the ChildSet ends it by pid after that). */
const LEAVE_MS = 3_000;
/** After that exit: the server reads the client's end of the socket on its next turn. */
const LEAVE_GRACE_MS = 20;

/** Resolves once `child` has exited and the server has had a moment for its detach, or after LEAVE_MS. */
export function leftBy(child: ChildProcess): Promise<void> {
  return new Promise<void>((done) => {
    // Never what keeps an ending engine's process alive.
    const cap = setTimeout(done, LEAVE_MS).unref();
    child.once('close', () => {
      clearTimeout(cap);
      setTimeout(done, LEAVE_GRACE_MS);
    });
  });
}
