import type { ChildProcess } from 'node:child_process';

/**
 * Every process an engine starts (its held tmux control clients, the activity watch's clients and
 * ssh streams, the hosts' hook streams, one-shot commands, the window's attach clients) is tracked
 * here by its pid until it exits, so it ends with the engine whatever ends the engine.
 *
 * Why not leave a child to end when its stdin closes: a tmux control client whose server is
 * exiting at that moment never does. tmux 3.3a's server, once told to exit (kill-server), waits for
 * every client to go; a control client goes only when its output is flushed, and the server writes
 * that output itself into the client's stdout, which is this engine's pipe. If the engine is gone by
 * then the write fails, the output stays unflushed, and the server never sends the client its exit:
 * the server lives on refusing every new client ("server exited unexpectedly") and the client lives
 * on, orphaned. Ending the client process (it tells the server it is exiting, or its connection
 * closes) lets the server finish. So the engine ends each child itself: it asks first (a detach),
 * then SIGTERM, then SIGKILL, each with a bounded wait, and waits for the exit.
 */
export interface Endable {
  readonly pid: number | undefined;
  /** Whether it has exited (its exit was seen). */
  readonly done: boolean;
  onExit(fn: () => void): void;
  kill(signal: NodeJS.Signals): void;
}

interface Tracked {
  proc: Endable;
  /** What the process is, for a report of what was left. */
  what: string;
  /** The polite way to end it (a control client's detach); asked once. */
  detach?: () => void;
  detached: boolean;
}

/** Every ChildSet with a live child: the process's last act ends them (see `killAllNow`). */
const WITH_CHILDREN = new Set<ChildSet>();
let exitHooked = false;

export class ChildSet {
  private readonly live = new Set<Tracked>();

  /** Tracks a process until it exits. */
  track(proc: Endable, what: string, detach?: () => void): void {
    if (proc.done || proc.pid === undefined) return;
    const t: Tracked = { proc, what, detach, detached: false };
    this.live.add(t);
    WITH_CHILDREN.add(this);
    hookProcessExit();
    proc.onExit(() => {
      this.live.delete(t);
      if (this.live.size === 0) WITH_CHILDREN.delete(this);
    });
  }

  /** A Node child process, tracked. */
  trackChild(child: ChildProcess, what: string, detach?: () => void): void {
    this.track(endableChild(child), what, detach);
  }

  /** Pids of the tracked processes still running, with what each is. */
  list(): { pid: number; what: string }[] {
    return [...this.live].map((t) => ({ pid: t.proc.pid!, what: t.what }));
  }

  /**
   * Ends every tracked process and resolves once each has exited: a detach where one is known
   * (unless `detach: false`), SIGTERM after 40% of `boundMs`, SIGKILL after 70%, then the rest of
   * the bound for the exits.
   */
  async endAll(boundMs = 2_000, opts: { detach?: boolean } = {}): Promise<void> {
    const all = [...this.live];
    if (all.length === 0) return;
    // A detach is an ask a stuck tmux server never answers: then go straight to the signals.
    if (opts.detach !== false) {
      for (const t of all) askToEnd(t);
      if (await this.exitedWithin(all, boundMs * 0.4)) return;
    }
    for (const t of all) signal(t, 'SIGTERM');
    if (await this.exitedWithin(all, boundMs * 0.3)) return;
    for (const t of all) signal(t, 'SIGKILL');
    await this.exitedWithin(all, boundMs * 0.3);
  }

  /** Ends one tracked process the same way (detach, SIGTERM, SIGKILL), resolving when it has exited. */
  async end(proc: Endable, boundMs = 2_000): Promise<void> {
    const t = [...this.live].find((x) => x.proc === proc);
    if (!t) return;
    askToEnd(t);
    if (await this.exitedWithin([t], boundMs * 0.4)) return;
    signal(t, 'SIGTERM');
    if (await this.exitedWithin([t], boundMs * 0.3)) return;
    signal(t, 'SIGKILL');
    await this.exitedWithin([t], boundMs * 0.3);
  }

  /** Synchronously SIGKILLs every tracked process: the last resort when the process exits now. */
  killNow(): void {
    for (const t of this.live) signal(t, 'SIGKILL');
  }

  private async exitedWithin(list: Tracked[], ms: number): Promise<boolean> {
    const until = Date.now() + ms;
    for (;;) {
      if (list.every((t) => t.proc.done)) return true;
      if (Date.now() >= until) return false;
      await new Promise((r) => setTimeout(r, 20));
    }
  }
}

function askToEnd(t: Tracked): void {
  if (t.detached || !t.detach) return;
  t.detached = true;
  try {
    t.detach();
  } catch {
    /* its stdin is gone already */
  }
}

function signal(t: Tracked, sig: NodeJS.Signals): void {
  if (t.proc.done) return;
  try {
    t.proc.kill(sig);
  } catch {
    /* exited meanwhile */
  }
}

/** A ChildProcess as an Endable: exited once Node saw it exit (or fail to start). */
export function endableChild(child: ChildProcess): Endable {
  let done = child.exitCode !== null || child.signalCode !== null;
  const fns: (() => void)[] = [];
  const finish = () => {
    if (done) return;
    done = true;
    for (const f of fns.splice(0)) f();
  };
  child.once('exit', finish);
  child.once('error', () => {
    if (child.pid === undefined) finish();
  });
  return {
    get pid() {
      return child.pid;
    },
    get done() {
      return done;
    },
    onExit: (fn) => (done ? fn() : fns.push(fn)),
    kill: (sig) => void child.kill(sig),
  };
}

/** Every engine's tracked processes in this process, SIGKILLed (when it exits without ending them). */
export function killAllNow(): void {
  for (const set of WITH_CHILDREN) set.killNow();
}

/**
 * On the process's exit (a crash, `process.exit` before an orderly end), whatever an engine still
 * tracks is killed: synchronously, since nothing asynchronous runs after 'exit'.
 */
function hookProcessExit(): void {
  if (exitHooked) return;
  exitHooked = true;
  process.on('exit', killAllNow);
}
