import type { ErrorCode, Failure } from '../../../shared/errors';
import { isFailure } from '../../../shared/errors';
import type { Clock } from '../deps';
import { type ChangedFile, type GitPort, readChanges } from '../git';
import type { SeatRow } from '../store';
import { resolveSeatTree, type SeatTree } from './tree';
import { TreeWatcher, type WatchPort } from './watch';

/**
 * What each working tree changed, read from git and kept. A long-lived engine watches each tree
 * it has read (file-system events, never a poll) and reads it again only when a write there
 * settles; its readers (ps, the window) get the kept figures at no cost. An engine that does not
 * watch (a one-shot CLI command) reads what it is asked for, now.
 */

export interface TreeFigures {
  files: ChangedFile[];
  readAt: number;
}

export interface Problem {
  code: ErrorCode;
  message: string;
  hint?: string;
}

export type SeatLook = { tree: SeatTree; figures?: TreeFigures; problem?: Problem } | { problem: Problem };

interface TreeEntry {
  tree: SeatTree;
  figures?: TreeFigures;
  problem?: Problem;
  /** A write was seen since the figures were read (or they were never read). */
  stale: boolean;
  reading?: Promise<void>;
  watched: boolean;
}

type Resolved = { key: string; at: number } | { problem: Problem; at: number };

export interface BookDeps {
  gitOn: (host: string) => GitPort;
  clock: Pick<Clock, 'now' | 'after'>;
  /** Whether a path exists on this machine: a seat in no repository is known without running git. */
  exists?: (path: string) => boolean;
}

/** Seats read in the background at once, at most: a rig of 200 never starts 200 gits together. */
export const BACKGROUND_READS = 4;

/** A seat not in a repository is asked again this long after (a `git init` there shows then). */
export const RESOLVE_AGAIN_MS = 5 * 60_000;

export class ChangesBook {
  private readonly trees = new Map<string, TreeEntry>();
  private readonly seats = new Map<string, Resolved>();
  private readonly listeners = new Set<(key: string) => void>();
  private watcher?: TreeWatcher;

  constructor(private readonly deps: BookDeps) {}

  /** Watches every tree read from now on (this machine's; a host's trees are read when asked). */
  startWatching(port: WatchPort): void {
    this.watcher ??= new TreeWatcher(port, this.deps.clock, (key) => this.settled(key));
  }

  get watching(): boolean {
    return this.watcher !== undefined;
  }

  async close(): Promise<void> {
    const w = this.watcher;
    this.watcher = undefined;
    await w?.close();
  }

  /** Called with a tree's key when its figures changed. */
  onChange(fn: (key: string) => void): () => void {
    this.listeners.add(fn);
    return () => void this.listeners.delete(fn);
  }

  /** The seat's tree and figures as kept; read now when they are not kept or not watched. */
  async look(seat: SeatRow): Promise<SeatLook> {
    const tree = await this.treeOf(seat);
    if ('problem' in tree && !('top' in tree)) return tree;
    const e = tree as TreeEntry;
    if (e.stale || !e.watched) await this.read(e);
    else if (e.reading) await e.reading; // a read under way is newer than what is kept
    return { tree: e.tree, ...(e.figures ? { figures: e.figures } : {}), ...(e.problem ? { problem: e.problem } : {}) };
  }

  /**
   * What is kept for the seat, without waiting for git: a seat never read is read in the
   * background (its figures come with a change notice), so a `ps` stays free of git work.
   */
  kept(seat: SeatRow): SeatLook | undefined {
    const r = this.seats.get(seat.seat);
    const again = r && this.deps.clock.now() - r.at > RESOLVE_AGAIN_MS && 'problem' in r;
    if (!r || again) {
      this.later(seat);
      return undefined;
    }
    if ('problem' in r) return { problem: r.problem };
    const e = this.trees.get(r.key);
    if (!e) return undefined;
    if (e.stale && !e.reading) void this.read(e).then(() => this.tell(e.tree.key));
    return { tree: e.tree, ...(e.figures ? { figures: e.figures } : {}), ...(e.problem ? { problem: e.problem } : {}) };
  }

  private readonly waiting = new Map<string, SeatRow>();
  private readonly inflight = new Set<string>();
  private running = 0;

  /** A look in the background, a few at a time; its figures come with a change notice. */
  private later(seat: SeatRow): void {
    if (!this.inflight.has(seat.seat)) this.waiting.set(seat.seat, seat);
    while (this.running < BACKGROUND_READS && this.waiting.size > 0) {
      const [name, next] = this.waiting.entries().next().value as [string, SeatRow];
      this.waiting.delete(name);
      this.inflight.add(name);
      this.running += 1;
      void this.look(next)
        .then((l) => {
          if ('tree' in l && l.figures) this.tell(l.tree.key);
        })
        .catch(() => undefined)
        .finally(() => {
          this.running -= 1;
          this.inflight.delete(name);
          const again = this.waiting.values().next().value;
          if (again) this.later(again);
        });
    }
  }

  /**
   * Reads again every tree of the seat's repository and tells who listens: after a merge the base
   * moved, which no watch of a worktree sees, and every seat's figures against it changed.
   */
  refreshRepo(seat: string): void {
    const r = this.seats.get(seat);
    const e = r && 'key' in r ? this.trees.get(r.key) : undefined;
    if (!e) return;
    for (const other of this.trees.values())
      if (other.tree.repoKey === e.tree.repoKey) {
        other.stale = true;
        const after = other.reading ? other.reading.then(() => this.read(other)) : this.read(other);
        void after.then(() => this.tell(other.tree.key));
      }
  }

  /** Forgets a seat's tree (its worktree removed, its rig down): the next look resolves it again. */
  forget(seat: string): void {
    this.seats.delete(seat);
  }

  private async treeOf(seat: SeatRow): Promise<TreeEntry | { problem: Problem }> {
    const r = this.seats.get(seat.seat);
    if (r && 'key' in r) {
      const e = this.trees.get(r.key);
      if (e) return e;
    }
    if (r && 'problem' in r && this.deps.clock.now() - r.at <= RESOLVE_AGAIN_MS && this.watcher)
      return { problem: r.problem };
    const t = await resolveSeatTree(this.deps.gitOn(seat.host), seat, this.deps.exists);
    const at = this.deps.clock.now();
    if (isFailure(t)) {
      const problem = asProblem(t);
      this.seats.set(seat.seat, { problem, at });
      return { problem };
    }
    this.seats.set(seat.seat, { key: t.key, at });
    let e = this.trees.get(t.key);
    if (!e) {
      e = { tree: t, stale: true, watched: false };
      this.trees.set(t.key, e);
      await this.watch(e);
      // A read that started while the watch was being placed may have missed a write made then:
      // the tree is read once more now that every later write is seen.
      e.stale = true;
    }
    return e;
  }

  private async watch(e: TreeEntry): Promise<void> {
    if (!this.watcher || e.tree.host !== 'local') return;
    try {
      await this.watcher.add({ key: e.tree.key, top: e.tree.top, gitDir: e.tree.gitDir });
      e.watched = true;
    } catch {
      // No watch (too many, a folder gone): the tree is read on every look instead.
    }
  }

  private read(e: TreeEntry): Promise<void> {
    e.reading ??= (async () => {
      e.stale = false;
      const files = await readChanges(this.deps.gitOn(e.tree.host), e.tree);
      if (isFailure(files)) e.problem = asProblem(files);
      else {
        delete e.problem;
        e.figures = { files, readAt: this.deps.clock.now() };
      }
    })().finally(() => {
      e.reading = undefined;
    });
    return e.reading;
  }

  private settled(key: string): void {
    const e = this.trees.get(key);
    if (!e) return;
    e.stale = true;
    const before = JSON.stringify(e.figures?.files);
    // A read already under way may have started before this write: one more read follows it.
    const after = e.reading ? e.reading.then(() => this.read(e)) : this.read(e);
    void after.then(() => {
      if (JSON.stringify(e.figures?.files) !== before) this.tell(key);
    });
  }

  private tell(key: string): void {
    for (const fn of this.listeners) {
      try {
        fn(key);
      } catch {
        /* a listener's fault is its own */
      }
    }
  }
}

function asProblem(f: Failure): Problem {
  return { code: f.code, message: f.message, ...(f.hint ? { hint: f.hint } : {}) };
}
