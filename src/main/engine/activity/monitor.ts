import type { FSWatcher } from 'node:fs';
import { join } from 'node:path';
import type { Timer } from '../deps';
import type { Ports } from '../ports';
import { parseServerKey, serverArgs, type TmuxServerRef } from '../tmux/identity';
import type { SshHost } from '../hosts/transport';
import { createHash } from 'node:crypto';
import { PaneOutputWatch } from './control';
import { RestCadence } from './cadence';
import { LookPacer } from './pace';
import { PanePipeWatch } from './pipe';
import { remotePipeArgs, RemotePipeWatch } from './pipe-remote';
import { controlPids, pipeFifos, type SeatWatch, watchKind } from './watch-kinds';
import { type ActivityChange, ActivityRecord } from './record';
import { type FreshLookPorts, type ObservedSeat, observeSeats } from './observe';
import type { Roster, RosterPane } from '../roster/types';
import { bindDiscoveredConversations } from '../seats/bind';
import { RemoteHookWatches } from '../hosts/hook-watch';

export type { ActivityChange };

/**
 * A look at every seat by somebody else (a window's `ps`) puts the fallback pass off by this much more
 * than the monitor's own would, so a pass of ours just before a window's next poll never reads twice.
 */
const OTHERS_LOOK_SLACK = 1.25;

/**
 * Event-driven activity for a long-lived engine (the app, `rigdesk serve`): pane output (a
 * `pipe-pane` fifo per pane, pipe.ts, on a host pipe-remote.ts; a control-mode client for panes
 * somebody else pipes, control.ts) and live-state files (inotify) mark seats dirty; a dirty seat is
 * looked at once, paced while its output streams on (pace.ts) (one roster + one batched capture),
 * and a change becomes a `seat.activity` event row before anything else hears of it. A slow full
 * pass catches what no event reports (a process exiting without printing), every `fallbackMs` while
 * anything happens, up to `restMaxMs` apart on a rig where nothing does (cadence.ts). Looks taken
 * by others (observe.ts `Looks`: a window's `ps`, a send) are news too: what they saw change is
 * recorded the same way, and one that covers every seat stands for the fallback pass. At rest
 * nothing runs but the fallback pass, or nothing at all while a window's polls look.
 */
export class ActivityMonitor {
  private watches = new Map<string, SeatWatch>();
  private fsWatchers: FSWatcher[] = [];
  /** Seats to look at, and when ('*': every seat, now). */
  private dirty = new Map<string, number>();
  /** Dirty seats whose news is explicit (a hook, a live-state file): never held for a pause in output. */
  private urgent = new Set<string>();
  private timerAt = Infinity;
  private readonly pacer: LookPacer;
  private readonly recorded: ActivityRecord;
  private timer?: Timer;
  private fallback?: Timer;
  /** The roster of the monitor's own pass in progress: that look is recorded by the pass itself. */
  private ownRoster?: Roster;
  private offLooks?: () => void;
  private running = false;
  private busy = false;
  private listeners: ((c: ActivityChange) => void)[] = [];
  /** Seats whose pane is being respawned: no control client may attach to them meanwhile. */
  private respawning = new Set<string>();
  private offRespawn?: () => void;
  /** Hooks of seats on other hosts: explicit news, as the local hooks folder's. */
  private readonly remoteHooks: RemoteHookWatches;
  /** The wait before the next fallback pass: longer while full looks find nothing new. */
  private readonly rest: RestCadence;

  constructor(
    private readonly ports: FreshLookPorts & Pick<Ports, 'env' | 'exec' | 'onBeforeRespawn' | 'children'>,
    private readonly opts: {
      debounceMs?: number;
      fallbackMs?: number;
      /** The longest wait between fallback passes on a rig where nothing happens (default 3 × fallbackMs). */
      restMaxMs?: number;
      /** A pass that failed while the monitor runs (one that fails after stop() is not news). */
      onError?: (e: Error) => void;
    } = {},
  ) {
    this.pacer = new LookPacer(opts.debounceMs);
    this.remoteHooks = new RemoteHookWatches(
      (name, file, args) => {
        const h = this.ports.hosts.get(name);
        return h && !h.holdingOff() ? h.streamArgv(file, args) : undefined;
      },
      (seat) => this.markDirty(seat, true),
      this.ports.env,
      this.ports.children,
    );
    this.recorded = new ActivityRecord(ports);
    this.rest = new RestCadence(this.fallbackMs, opts.restMaxMs);
  }

  onChange(fn: (c: ActivityChange) => void): () => void {
    this.listeners.push(fn);
    return () => (this.listeners = this.listeners.filter((l) => l !== fn));
  }

  async start(): Promise<void> {
    this.running = true;
    this.offRespawn = this.ports.onBeforeRespawn((server, paneId) => this.yieldPane(server, paneId));
    // Hook events land as one file per seat: a change there is that seat's news.
    this.ports.fs.mkdirSync(this.ports.layout.hooksDir, { recursive: true, mode: 0o700 });
    this.ports.fs.mkdirSync(this.ports.layout.watchDir, { recursive: true, mode: 0o700 });
    try {
      const fw = this.ports.fs.watch(this.ports.layout.hooksDir, (_e, name) => {
        const n = String(name ?? '');
        // A hook's event is explicit news: never paced.
        if (n.endsWith('.json')) this.markDirty(n.slice(0, -5), true);
      });
      fw.on('error', () => undefined);
      this.fsWatchers.push(fw);
    } catch {
      /* the fallback pass covers it */
    }
    this.offLooks = this.ports.looks.on((roster, observed) => this.othersLook(roster, observed));
    // The first pass's failure is the caller's: a monitor that cannot look at all does not start.
    await this.passOnce(true);
  }

  private get fallbackMs(): number {
    return this.opts.fallbackMs ?? 5000;
  }

  /** The next full pass, `afterMs` from now unless a look at every seat comes first. */
  private armFallback(afterMs: number): void {
    this.fallback?.cancel();
    if (!this.running) return;
    this.fallback = this.ports.clock.after(afterMs, () => void this.pass(true), { unref: true });
  }

  stop(): void {
    this.running = false;
    this.offRespawn?.();
    this.offLooks?.();
    this.fallback?.cancel();
    this.timer?.cancel();
    this.timer = undefined;
    this.timerAt = Infinity;
    for (const w of this.watches.values()) w.stop();
    this.watches.clear();
    for (const f of this.fsWatchers) f.close();
    this.fsWatchers = [];
    this.remoteHooks.stop();
  }

  /** Once a pass still running when the monitor stopped has ended (its owner may close the store then). */
  async settled(): Promise<void> {
    while (this.busy) await this.ports.clock.sleep(10);
  }

  /**
   * Before a pane is respawned: a control client watching its session detaches (and stays away
   * until the respawn is done); a pipe needs nothing, it survives the respawn.
   */
  private async yieldPane(server: string, paneId: string): Promise<() => void> {
    const seats = this.ports.store.sessions
      .allLive()
      .filter((l) => l.server === server && l.paneId === paneId)
      .map((l) => l.seat);
    for (const seat of seats) this.respawning.add(seat);
    await Promise.all(
      seats.map(async (seat) => {
        const w = this.watches.get(seat);
        if (!(w instanceof PaneOutputWatch)) return;
        this.watches.delete(seat);
        await w.detach();
      }),
    );
    return () => {
      for (const seat of seats) {
        this.respawning.delete(seat);
        this.markDirty(seat, true);
      }
    };
  }

  /** Pids of the control clients, so a bench can count their CPU too. */
  watcherPids(): number[] {
    return controlPids(this.watches.values());
  }

  /** How each seat is watched (tests and diagnostics). */
  watchKind(seat: string): 'pipe' | 'remote-pipe' | 'control' | undefined {
    return watchKind(this.watches.get(seat));
  }

  /** The fifos pane output is piped into (a bench finds the `cat` writing each). */
  watchFifos(): string[] {
    return pipeFifos(this.watches.values());
  }

  /** Pane output (paced: see pace.ts), or `urgent` news from a hook or a live-state file. */
  private markDirty(seat: string, urgent = false): void {
    // News after a quiet spell: the next fallback pass comes at the base pace again, not a long wait away.
    if (seat !== '*' && this.rest.news()) this.armFallback(this.fallbackMs);
    const due = this.pacer.dueAt(seat, this.ports.clock.now(), urgent || seat === '*');
    if (urgent) this.urgent.add(seat);
    const prev = this.dirty.get(seat);
    if (prev === undefined || due < prev) this.dirty.set(seat, due);
    this.schedule();
  }

  private schedule(): void {
    if (!this.running || this.dirty.size === 0) return;
    const next = Math.min(...this.dirty.values());
    if (this.timer && next >= this.timerAt) return;
    this.timer?.cancel();
    this.timerAt = next;
    this.timer = this.ports.clock.after(Math.max(0, next - this.ports.clock.now()), () => {
      this.timer = undefined;
      this.timerAt = Infinity;
      void this.pass(false);
    });
  }

  /**
   * Passes run from timers: a failure is reported, never an unhandled rejection, and one that
   * comes after stop() (the store may be closed under a roster that was under way) is dropped.
   */
  private async pass(all: boolean): Promise<void> {
    try {
      await this.passOnce(all);
    } catch (e) {
      if (!this.running) return;
      const err = e instanceof Error ? e : new Error(String(e));
      if (this.opts.onError) this.opts.onError(err);
      else process.stderr.write(`rigdesk: activity monitor: ${err.message}\n`);
    }
  }

  private async passOnce(all: boolean): Promise<void> {
    if (!this.running) return;
    if (this.busy) {
      if (all) this.dirty.set('*', 0);
      return;
    }
    this.busy = true;
    let full = false;
    try {
      const mark = this.rest.mark;
      const names = this.dueSeats(all);
      full = names === undefined;
      const every = this.ports.store.rigs.seats();
      this.remoteHooks.sync(every);
      const seats = every.filter((s) => !names || names.has(s.seat));
      if (seats.length === 0) return;
      for (const s of seats) this.watches.get(s.seat)?.rearm();
      const roster = await this.ports.roster();
      // Stopped while the roster was read (the store may be closed by now): nothing more to do.
      if (!this.running) return;
      bindDiscoveredConversations(this.ports, roster);
      this.ownRoster = roster;
      let observed: Map<string, ObservedSeat>;
      try {
        observed = await observeSeats(this.ports, roster, seats);
      } finally {
        this.ownRoster = undefined;
      }
      if (!this.running) return;
      const changed = this.record(observed, roster.takenAt);
      if (full) this.rest.looked(changed > 0, mark);
      // After the news: starting a watch waits on tmux (and ssh), for every seat at once.
      await Promise.all(
        [...observed].map(([seat, o]) => this.ensureWatches(seat, o.live?.server, o.live?.sessionId, o.pane)),
      );
    } finally {
      this.busy = false;
      if (full) this.armFallback(this.rest.waitMs);
      this.schedule();
    }
  }

  /** The seats due for a look now (undefined: every seat), taking them off the dirty list. */
  private dueSeats(all: boolean): Set<string> | undefined {
    const now = this.ports.clock.now();
    if (all || this.dirty.has('*')) {
      this.dirty.clear();
      this.urgent.clear();
      return undefined;
    }
    // Only the seats that are due; a paced seat waits for its own time.
    const names = new Set([...this.dirty].filter(([, due]) => due <= now + 2).map(([seat]) => seat));
    for (const seat of names) {
      // A working seat still streaming output waits for a pause in it (pace.ts).
      const hold = this.urgent.has(seat)
        ? now
        : this.pacer.holdUntil(seat, now, this.recorded.working(seat), this.watches.get(seat)?.lastOutputAt);
      if (hold > now + 2) {
        this.dirty.set(seat, hold);
        names.delete(seat);
        continue;
      }
      this.dirty.delete(seat);
      this.urgent.delete(seat);
      this.pacer.looked(seat, now);
    }
    return names;
  }

  /** Each change becomes a `seat.activity` row, then news for the listeners; how many there were. */
  private record(observed: ReadonlyMap<string, ObservedSeat>, takenAt: number): number {
    const changes = this.recorded.take(observed, takenAt);
    for (const c of changes) for (const l of this.listeners) l(c);
    return changes.length;
  }

  /**
   * Somebody else looked (a window's `ps`, a send): what changed is recorded as from a look of our
   * own. A seat it found with no live watch gets a pass of ours (which starts one); a look at every
   * seat, all watched, puts the fallback pass off.
   */
  private othersLook(roster: Roster, observed: ReadonlyMap<string, ObservedSeat>): void {
    if (!this.running || roster === this.ownRoster) return;
    try {
      const changed = this.record(observed, roster.takenAt);
      const unwatched = [...observed]
        .filter(([seat, o]) => o.live && !this.watches.get(seat)?.alive && !this.respawning.has(seat))
        .map(([seat]) => seat);
      for (const seat of unwatched) this.markDirty(seat);
      if (unwatched.length > 0) return;
      if (this.ports.store.rigs.seats().every((s) => observed.has(s.seat))) {
        this.rest.looked(changed > 0);
        this.armFallback(Math.round(this.rest.waitMs * OTHERS_LOOK_SLACK));
      }
    } catch {
      /* the store is closing under a look that is ending: nothing to record */
    }
  }

  private async ensureWatches(
    seat: string,
    server: string | undefined,
    sessionId: string | undefined,
    pane: RosterPane | undefined,
  ): Promise<void> {
    const existing = this.watches.get(seat);
    // A pane with no pipe gets ours; one with a pipe (a person's, or one left by an engine that went
    // away) gets a control client until it has none. Our own pipe's watch ends with its writer
    // (the pane died, the pipe was replaced or closed).
    const pipeable = pane !== undefined && !pane.paneDead && pane.pipe === false;
    const ownPipe = existing instanceof PanePipeWatch || existing instanceof RemotePipeWatch;
    const keep = ownPipe
      ? existing.key === `${server} ${pane?.paneId}`
      : !pipeable && existing?.key === `${server} ${sessionId}`;
    if (existing?.alive && keep) return;
    existing?.stop();
    this.watches.delete(seat);
    if (!server || !sessionId) return;
    const ref = parseServerKey(server);
    // An unknown host gets no watch (polling still looks at it); its files are not ours to watch here.
    const host = ref.host ? this.ports.hosts.get(ref.host) : undefined;
    if (ref.host && !host) return;
    // No control client for a local pipe that failed for a moment: tried next pass (tmux/control-timing.ts).
    const piped = pipeable ? await this.startPipe(seat, server, ref, pane.paneId, host) : 'foreign';
    if (piped !== 'piped' && !(piped === 'failed' && !host) && !this.respawning.has(seat)) {
      const w = new PaneOutputWatch(
        `${server} ${sessionId}`,
        ref,
        sessionId,
        () => this.markDirty(seat),
        this.ports.env,
        this.ports.clock,
        host?.controlArgv(sessionId),
        this.ports.children,
      );
      this.watches.set(seat, w);
      await this.ports.client(server).quietWhile(() => w.start());
    }
    if (pane?.agent?.home && !ref.host) this.watchDir(join(pane.agent.home, 'sessions'));
  }

  /** Pipes the pane into a fifo here or on its host, or says why not (pipe.ts PipeStart). */
  private async startPipe(
    seat: string,
    server: string,
    ref: TmuxServerRef,
    paneId: string,
    host: SshHost | undefined,
  ): Promise<'piped' | 'foreign' | 'unsafe_path' | 'failed'> {
    const key = `${server} ${paneId}`;
    const name = createHash('sha256').update(key).digest('hex').slice(0, 16);
    const w = host
      ? new RemotePipeWatch(
          key,
          host.streamArgv('sh', remotePipeArgs(name, paneId, ['tmux', '-u', ...serverArgs(ref)])),
          () => this.markDirty(seat),
          this.ports.env,
          this.ports.clock,
          this.ports.children,
        )
      : new PanePipeWatch(
          key,
          this.ports.client(server),
          paneId,
          join(this.ports.layout.watchDir, `${name}.fifo`),
          () => this.markDirty(seat),
          this.ports.exec,
          this.ports.clock,
          this.ports.fs,
        );
    this.watches.set(seat, w);
    const started = await w.start();
    // Stopped meanwhile: stop() cleared the watches, so this one goes too; no control client follows.
    if (!this.running) {
      w.stop();
      if (this.watches.get(seat) === w) this.watches.delete(seat);
      return 'piped';
    }
    if (!started.ok) this.watches.delete(seat);
    return started.ok ? 'piped' : started.why;
  }

  private watchedDirs = new Set<string>();
  /** A live-state directory may serve several seats: a change there looks at every seat. */
  private watchDir(dir: string): void {
    if (this.watchedDirs.has(dir)) return;
    try {
      const fw = this.ports.fs.watch(dir, () => this.markDirty('*'));
      fw.on('error', () => undefined);
      this.fsWatchers.push(fw);
      this.watchedDirs.add(dir);
    } catch {
      /* no such directory yet: the fallback pass covers it */
    }
  }
}
