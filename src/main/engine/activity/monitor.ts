import { mkdirSync, watch, type FSWatcher } from 'node:fs';
import { join } from 'node:path';
import type { Engine } from '../engine';
import { parseServerKey } from '../tmux/identity';
import { PaneOutputWatch } from './control';
import { activityLabel, type SeatActivity } from './decide';
import { observeSeats } from './observe';
import { bindDiscoveredConversations } from '../services/bind';

export interface ActivityChange {
  seat: string;
  activity: SeatActivity;
  label: ReturnType<typeof activityLabel>;
  at: number;
}

/**
 * Event-driven activity for a long-lived engine (the app, `rigdesk serve`): pane output (tmux
 * control mode) and live-state files (inotify) mark seats dirty; a dirty seat is looked at once
 * (one roster + one batched capture), and a change becomes a `seat.activity` event row before
 * anything else hears of it. A slow full pass catches what no event reports (a process exiting
 * without printing). At rest nothing runs but the fallback pass.
 */
export class ActivityMonitor {
  private watches = new Map<string, PaneOutputWatch>();
  private fsWatchers: FSWatcher[] = [];
  private dirty = new Set<string>();
  private last = new Map<string, string>();
  private timer?: NodeJS.Timeout;
  private fallback?: NodeJS.Timeout;
  private running = false;
  private busy = false;
  private listeners: ((c: ActivityChange) => void)[] = [];

  constructor(private readonly engine: Engine, private readonly opts: { debounceMs?: number; fallbackMs?: number } = {}) {}

  onChange(fn: (c: ActivityChange) => void): () => void {
    this.listeners.push(fn);
    return () => (this.listeners = this.listeners.filter((l) => l !== fn));
  }

  async start(): Promise<void> {
    this.running = true;
    // Hook events land as one file per seat: a change there is that seat's news.
    mkdirSync(this.engine.deps.layout.hooksDir, { recursive: true, mode: 0o700 });
    try {
      const fw = watch(this.engine.deps.layout.hooksDir, (_e, name) => {
        const n = String(name ?? '');
        if (n.endsWith('.json')) this.markDirty(n.slice(0, -5));
      });
      fw.on('error', () => undefined);
      this.fsWatchers.push(fw);
    } catch {
      /* the fallback pass covers it */
    }
    await this.pass(true);
    this.fallback = setInterval(() => void this.pass(true), this.opts.fallbackMs ?? 5000);
    this.fallback.unref?.();
  }

  stop(): void {
    this.running = false;
    clearInterval(this.fallback);
    clearTimeout(this.timer);
    for (const w of this.watches.values()) w.stop();
    this.watches.clear();
    for (const f of this.fsWatchers) f.close();
    this.fsWatchers = [];
  }

  /** Pids of the control clients, so a bench can count their CPU too. */
  watcherPids(): number[] {
    return [...this.watches.values()].map((w) => w.pid).filter((p): p is number => p !== undefined);
  }

  private markDirty(seat: string): void {
    this.dirty.add(seat);
    if (this.timer) return;
    this.timer = setTimeout(() => {
      this.timer = undefined;
      void this.pass(false);
    }, this.opts.debounceMs ?? 30);
  }

  private async pass(all: boolean): Promise<void> {
    if (!this.running) return;
    if (this.busy) {
      if (all) this.dirty.add('*');
      return;
    }
    this.busy = true;
    try {
      const names = all || this.dirty.has('*') ? undefined : new Set(this.dirty);
      this.dirty.clear();
      const seats = this.engine.store.rigs.seats().filter((s) => !names || names.has(s.seat));
      if (seats.length === 0) return;
      for (const s of seats) this.watches.get(s.seat)?.rearm();
      const roster = await this.engine.roster();
      // Stopped while the roster was read (the store may be closed by now): nothing more to do.
      if (!this.running) return;
      bindDiscoveredConversations(this.engine, roster);
      const observed = await observeSeats(this.engine, roster, seats);
      if (!this.running) return;
      for (const [seat, o] of observed) {
        this.ensureWatches(seat, o.live?.server, o.live?.sessionId, o.pane?.agent?.home);
        const label = activityLabel(o.activity);
        const key = `${label}|${o.activity.needsInput}|${o.activity.session}|${o.activity.draft ? 1 : 0}`;
        if (this.last.get(seat) === key) continue;
        this.last.set(seat, key);
        const at = this.engine.now();
        this.engine.store.events.append('seat.activity', { rig: o.seat.rig, seat }, { label, session: o.activity.session, activity: o.activity.activity, needsInput: o.activity.needsInput, draft: Boolean(o.activity.draft), basis: o.activity.basis });
        for (const l of this.listeners) l({ seat, activity: o.activity, label, at });
      }
    } finally {
      this.busy = false;
      if (this.dirty.size > 0) this.markDirty([...this.dirty][0]!);
    }
  }

  private ensureWatches(seat: string, server: string | undefined, sessionId: string | undefined, agentHome: string | undefined): void {
    const existing = this.watches.get(seat);
    const key = `${server} ${sessionId}`;
    if (existing && existing.alive && existing.key === key) return;
    existing?.stop();
    this.watches.delete(seat);
    if (!server || !sessionId) return;
    const ref = parseServerKey(server);
    // A remote session is watched by tmux -C on its host, over that host's shared ssh connection;
    // an unknown host gets no watch (polling still looks at it). Its files are not ours to watch here.
    const host = ref.host ? this.engine.hosts.get(ref.host) : undefined;
    if (ref.host && !host) return;
    const w = new PaneOutputWatch(key, ref, sessionId, () => this.markDirty(seat), this.engine.deps.env, host?.controlArgv(sessionId));
    w.start();
    this.watches.set(seat, w);
    if (agentHome && !ref.host) this.watchDir(join(agentHome, 'sessions'));
  }

  private watchedDirs = new Set<string>();
  /** A live-state directory may serve several seats: a change there looks at every seat. */
  private watchDir(dir: string): void {
    if (this.watchedDirs.has(dir)) return;
    try {
      const fw = watch(dir, () => this.markDirty('*'));
      fw.on('error', () => undefined);
      this.fsWatchers.push(fw);
      this.watchedDirs.add(dir);
    } catch {
      /* no such directory yet: the fallback pass covers it */
    }
  }
}
