import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { parcelWatchPort } from '../../src/main/engine/changes/parcel-port';
import { TreeWatcher } from '../../src/main/engine/changes/watch';
import { liveExec, liveFs, systemClock } from '../../src/main/engine/deps';
import { ensureWorktree, liveScratchFs, localGitPort, locateRepo, seatBranch } from '../../src/main/engine/git';
import { TestRepo } from '../support/git-repo';

/**
 * The live watcher (@parcel/watcher) on a real worktree: a write and a commit are each noticed
 * from file-system events alone, and writes under `.git/objects` or a lock file are not.
 */
let repo: TestRepo;
let watcher: TreeWatcher;
let settled: { key: string; at: number }[];

beforeEach(() => {
  repo = new TestRepo();
  repo.write('a.txt', 'a\n');
  repo.commitAll('init');
  settled = [];
  watcher = new TreeWatcher(parcelWatchPort(), systemClock, (key) => settled.push({ key, at: Date.now() }));
});
afterEach(async () => {
  await watcher.close();
  repo.remove();
});

async function until(pred: () => boolean, ms = 3000): Promise<boolean> {
  const end = Date.now() + ms;
  while (Date.now() < end) {
    if (pred()) return true;
    await new Promise((r) => setTimeout(r, 20));
  }
  return pred();
}

describe('the change watcher on a real worktree', () => {
  it('notices a write, and a commit made after it, each within a second', async () => {
    const port = localGitPort(liveExec, liveScratchFs(liveFs, repo.root), TestRepo.env());
    const facts = await locateRepo(port, repo.dir);
    if (!('top' in facts)) throw new Error(facts.message);
    const made = await ensureWorktree(port, { repo: facts, path: repo.path('wt'), branch: seatBranch('r', 'm') });
    if (!made.ok) throw new Error(made.message);
    const wt = await locateRepo(port, made.path);
    if (!('top' in wt)) throw new Error(wt.message);
    await watcher.add({ key: 'wt', top: wt.top, gitDir: wt.gitDir });

    const t0 = Date.now();
    repo.write('src/new.ts', 'export {};\n', made.path);
    expect(await until(() => settled.length === 1)).toBe(true);
    expect(settled[0]!.at - t0).toBeLessThan(1000);

    await new Promise((r) => setTimeout(r, 400));
    const before = settled.length;
    // The commit writes nothing in the tree: only the worktree's git folder (index, logs/HEAD).
    repo.git(['add', '-A'], made.path);
    repo.git(['commit', '-q', '-m', 'c'], made.path);
    expect(await until(() => settled.length > before)).toBe(true);
  });

  it('ignores the object store, lock files and node_modules', async () => {
    // The folder that holds a nested node_modules is made first: its own creation is a real change.
    repo.write('pkg/keep.txt', 'x');
    await watcher.add({ key: 'main', top: repo.dir, gitDir: `${repo.dir}/.git` });
    repo.write('objects/zz/junk', 'x', `${repo.dir}/.git`);
    repo.write('index.lock', 'x', `${repo.dir}/.git`);
    repo.write('node_modules/p/x.js', 'x');
    repo.write('pkg/node_modules/q/y.js', 'x');
    await new Promise((r) => setTimeout(r, 800));
    expect(settled).toEqual([]);
    repo.write('a.txt', 'b\n');
    expect(await until(() => settled.length === 1)).toBe(true);
  });
});
