/**
 * The release of held replies (`HOLD`): a reply with that word streams like SLOW, then waits before
 * its last chunk until the test opens the gate. A test can then look at an agent for as long as it
 * needs while the reply is known to be still streaming, instead of racing a fixed few seconds.
 */
export class Gate {
  private opened = false;
  private readonly waiters = new Set<() => void>();

  /** How many held replies are waiting at the gate now. */
  get waiting(): number {
    return this.waiters.size;
  }

  /** Resolves once the gate is open; rejects when the reply is abandoned (client gone, server closed). */
  passed(signal: AbortSignal): Promise<void> {
    if (this.opened) return Promise.resolve();
    return new Promise((resolve, reject) => {
      const onAbort = (): void => {
        this.waiters.delete(go);
        reject(signal.reason);
      };
      const go = (): void => {
        signal.removeEventListener('abort', onAbort);
        resolve();
      };
      if (signal.aborted) return onAbort();
      signal.addEventListener('abort', onAbort, { once: true });
      this.waiters.add(go);
    });
  }

  /** Lets every waiting held reply finish, and every later one pass without waiting. */
  open(): void {
    this.opened = true;
    for (const go of [...this.waiters]) go();
    this.waiters.clear();
  }

  /** Holds later `HOLD` replies again (the gate starts closed). */
  close(): void {
    this.opened = false;
  }
}
