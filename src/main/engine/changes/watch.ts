import type { Clock, Timer } from '../deps';

/**
 * Learns of a change in a working tree from file-system events, never by polling, and asks for a
 * refresh of that tree only, once a burst of writes settles (or at the latest `maxWaitMs` after
 * its first write, so a seat that writes without pause is still seen). Each tree is watched once
 * however many seats share it: its files (without `.git` and the usual bulky folders), and its
 * own git folder, where a commit, a checkout or a `git add` writes (`index`, `HEAD`, `logs/HEAD`).
 */

export interface WatchHandle {
  unsubscribe(): Promise<void>;
}

/** A recursive watch of one folder (the live one is @parcel/watcher). */
export interface WatchPort {
  subscribe(
    dir: string,
    onEvents: (err: Error | null, paths: string[]) => void,
    opts: { ignore: string[] },
  ): Promise<WatchHandle>;
}

export interface WatchedTree {
  /** A key for the tree (host and top folder). */
  key: string;
  top: string;
  /** The tree's own git folder; a linked worktree's lies outside it, under the repository's `.git/worktrees/`. */
  gitDir: string;
}

/**
 * Folders in a tree whose writes never show in `git status` in practice, and cost most to watch:
 * at the top by path, and dependency folders at any depth.
 */
export const TREE_IGNORE = [
  '.git',
  'node_modules',
  '.venv',
  'target',
  'dist',
  'out',
  '.next',
  '**/node_modules',
  '**/__pycache__',
];
/** In a git folder: the object store and the other worktrees' folders (their own watches see them). */
export const GITDIR_IGNORE = ['objects', 'worktrees', 'lfs', 'modules', 'logs/refs', 'rr-cache'];

interface Entry {
  tree: WatchedTree;
  users: number;
  handles: WatchHandle[];
  timer?: Timer;
  firstAt?: number;
}

export class TreeWatcher {
  private readonly trees = new Map<string, Entry>();
  constructor(
    private readonly port: WatchPort,
    private readonly clock: Pick<Clock, 'after' | 'now'>,
    private readonly onSettled: (key: string, why: 'write' | 'error') => void,
    private readonly quietMs = 150,
    private readonly maxWaitMs = 1_000,
  ) {}

  /** Watches a tree (once, counted per user); resolves when its watches are in place. */
  async add(tree: WatchedTree): Promise<void> {
    const had = this.trees.get(tree.key);
    if (had) {
      had.users += 1;
      return;
    }
    const e: Entry = { tree, users: 1, handles: [] };
    this.trees.set(tree.key, e);
    const on = (err: Error | null, paths: string[]) => this.event(tree.key, err, paths);
    e.handles.push(await this.port.subscribe(tree.top, on, { ignore: TREE_IGNORE }));
    // A linked worktree's git folder is elsewhere; the main tree's `.git` is inside `top` but ignored there.
    e.handles.push(await this.port.subscribe(tree.gitDir, on, { ignore: GITDIR_IGNORE }));
  }

  async remove(key: string): Promise<void> {
    const e = this.trees.get(key);
    if (!e) return;
    e.users -= 1;
    if (e.users > 0) return;
    this.trees.delete(key);
    e.timer?.cancel();
    await Promise.all(e.handles.map((h) => h.unsubscribe().catch(() => undefined)));
  }

  keys(): string[] {
    return [...this.trees.keys()];
  }

  async close(): Promise<void> {
    const all = [...this.trees.values()];
    this.trees.clear();
    for (const e of all) e.timer?.cancel();
    await Promise.all(all.flatMap((e) => e.handles.map((h) => h.unsubscribe().catch(() => undefined))));
  }

  private event(key: string, err: Error | null, paths: string[]): void {
    const e = this.trees.get(key);
    if (!e) return;
    if (err) {
      this.onSettled(key, 'error');
      return;
    }
    if (!paths.some((p) => relevant(p))) return;
    const now = this.clock.now();
    e.firstAt ??= now;
    e.timer?.cancel();
    const wait = Math.max(0, Math.min(this.quietMs, e.firstAt + this.maxWaitMs - now));
    e.timer = this.clock.after(
      wait,
      () => {
        e.timer = undefined;
        e.firstAt = undefined;
        this.onSettled(key, 'write');
      },
      { unref: true },
    );
  }
}

/** Lock files come and go around every git write; the write they guard is its own event. */
function relevant(path: string): boolean {
  return !path.endsWith('.lock');
}
