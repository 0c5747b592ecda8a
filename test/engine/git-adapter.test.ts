import { existsSync, readFileSync, rmSync, statSync, utimesSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { countingExec, type Exec, liveExec, liveFs } from '../../src/main/engine/deps';
import {
  checkMerge,
  ensureWorktree,
  execGitPort,
  type GitPort,
  liveScratchFs,
  localGitPort,
  locateRepo,
  mergeInto,
  readChanges,
  readFileDiff,
  readStatus,
  removeWorktree,
  seatBranch,
} from '../../src/main/engine/git';
import { remoteCommand } from '../../src/main/engine/hosts/ssh';
import { TestRepo } from '../support/git-repo';

/**
 * The git adapter against real repositories in temp folders. `execGitPort` is driven through a
 * stand-in for ssh that does what ssh does with a command (one string for a shell on the other
 * side), so its quoting meets hostile names the way a host's would.
 */
let repo: TestRepo;
let port: GitPort;
const env = TestRepo.env();

beforeEach(() => {
  repo = new TestRepo();
  repo.write('a.txt', 'a\nb\nc\n');
  repo.write('old.txt', 'x\ny\n');
  repo.write('b.bin', Buffer.from([0, 1, 2, 3]));
  repo.commitAll('init');
  port = localGitPort(liveExec, liveScratchFs(liveFs, repo.root), env);
});
afterEach(() => repo.remove());

async function seat(member = 'm1', p = port) {
  const facts = await locateRepo(p, repo.dir);
  if (!('top' in facts)) throw new Error(facts.message);
  const made = await ensureWorktree(p, {
    repo: facts,
    path: repo.path('wt', member),
    branch: seatBranch('rig', member),
  });
  if (!made.ok) throw new Error(made.message);
  return { facts, made };
}

async function changesOf(path: string, base?: string, p = port) {
  const f = await locateRepo(p, path);
  if (!('top' in f)) throw new Error(f.message);
  const r = await readChanges(p, { top: f.top, gitDir: f.gitDir, base });
  if (!Array.isArray(r)) throw new Error(r.message);
  return r;
}

describe('repositories and worktrees', () => {
  it('finds the repository of a subfolder, and refuses a folder outside any with NOT_A_REPO', async () => {
    repo.write('pkg/api/x.ts', '1\n');
    const f = await locateRepo(port, join(repo.dir, 'pkg'));
    expect(f).toMatchObject({ top: repo.dir, prefix: 'pkg/', branch: 'main', commonDir: join(repo.dir, '.git') });
    const outside = await locateRepo(port, repo.root);
    expect(outside).toMatchObject({ ok: false, code: 'NOT_A_REPO' });
  });

  it('makes the seat worktree on rigdesk/<rig>/<member> from the current branch, and reuses it after', async () => {
    const { facts, made } = await seat();
    expect(made).toMatchObject({ created: true, branch: 'rigdesk/rig/m1', base: 'main', path: repo.path('wt', 'm1') });
    expect(repo.git(['rev-parse', '--abbrev-ref', 'HEAD'], made.path).trim()).toBe('rigdesk/rig/m1');
    repo.write('wip.txt', 'kept\n', made.path);
    const again = await ensureWorktree(port, { repo: facts, path: made.path, branch: made.branch });
    expect(again).toMatchObject({ ok: true, created: false, path: made.path });
    expect(readFileSync(join(made.path, 'wip.txt'), 'utf8')).toBe('kept\n');
  });

  it('reports a worktree folder deleted by hand instead of making it anew', async () => {
    const { facts, made } = await seat();
    rmSync(made.path, { recursive: true, force: true });
    const r = await ensureWorktree(port, { repo: facts, path: made.path, branch: made.branch });
    expect(r).toMatchObject({ ok: false, code: 'WORKTREE_MISSING' });
    expect(existsSync(made.path)).toBe(false);
  });

  it('refuses a folder that is already there and not the seat worktree, and a base that does not exist', async () => {
    const facts = await locateRepo(port, repo.dir);
    if (!('top' in facts)) throw new Error('no repo');
    repo.write('x', 'not a worktree\n', repo.path('busy'));
    const taken = await ensureWorktree(port, { repo: facts, path: repo.path('busy'), branch: seatBranch('rig', 'm2') });
    expect(taken).toMatchObject({ ok: false, code: 'WORKTREE_TAKEN' });
    const noBase = await ensureWorktree(port, {
      repo: facts,
      path: repo.path('wt', 'm3'),
      branch: seatBranch('rig', 'm3'),
      base: 'nope',
    });
    expect(noBase).toMatchObject({ ok: false, code: 'SPEC_INVALID' });
    const badBase = await ensureWorktree(port, {
      repo: facts,
      path: repo.path('wt', 'm3'),
      branch: seatBranch('rig', 'm3'),
      base: '--orphan',
    });
    expect(badBase).toMatchObject({ ok: false, code: 'SPEC_INVALID' });
  });
});

describe('changes', () => {
  it('lists committed and uncommitted changes against the merge base: added, modified, deleted, renamed, binary, untracked', async () => {
    const { made } = await seat();
    const w = made.path;
    repo.write('a.txt', 'a\nB\nc\nd\n', w);
    repo.git(['mv', 'old.txt', 'new.txt'], w);
    repo.commitAll('c1', w);
    repo.write('b.bin', Buffer.from([0, 9, 9]), w);
    rmSync(join(w, 'a.txt'));
    repo.write('-rf :x\nname.txt', 'one\ntwo\n', w);
    repo.write('staged.txt', 'q\n', w);
    repo.git(['add', 'staged.txt'], w);
    // The base moving on does not show as the seat's change: the merge base is the reference.
    repo.write('main-only.txt', 'm\n');
    repo.commitAll('main moves');
    const files = await changesOf(w, 'main');
    expect(files).toEqual(
      expect.arrayContaining([
        { path: 'a.txt', status: 'deleted', added: 0, removed: 3 },
        { path: 'b.bin', status: 'modified', added: 0, removed: 0, binary: true },
        { path: 'new.txt', from: 'old.txt', status: 'renamed', added: 0, removed: 0 },
        { path: '-rf :x\nname.txt', status: 'added', added: 2, removed: 0 },
        { path: 'staged.txt', status: 'added', added: 1, removed: 0 },
      ]),
    );
    expect(files).toHaveLength(5);
  });

  it('never writes the seat index: the untracked file stays untracked and no lock is left', async () => {
    const { made } = await seat();
    repo.write('new.txt', 'n\n', made.path);
    const indexPath = repo.git(['rev-parse', '--git-path', 'index'], made.path).trim();
    const abs = indexPath.startsWith('/') ? indexPath : join(made.path, indexPath);
    // (The test's own status may refresh the index, so it runs before the mtime is taken.)
    const statusBefore = repo.git(['status', '--porcelain'], made.path);
    const before = statSync(abs).mtimeMs;
    await changesOf(made.path, 'main');
    expect(statSync(abs).mtimeMs).toBe(before);
    expect(existsSync(`${abs}.lock`)).toBe(false);
    expect(repo.git(['status', '--porcelain'], made.path)).toBe(statusBefore);
  });

  it('a seat without a worktree is compared with HEAD', async () => {
    repo.write('a.txt', 'a\n');
    const files = await changesOf(repo.dir);
    expect(files).toEqual([{ path: 'a.txt', status: 'modified', added: 0, removed: 2 }]);
  });

  it('sees a same-size rewrite made in the same moment as the index was written (the scratch index keeps its times)', async () => {
    // The index and the file get one mtime: git rehashes such "racily clean" entries only when it
    // sees the index's own mtime, which a plain copy of the index would move to now.
    const t = new Date(Math.floor(Date.now() / 1000) * 1000 - 5000);
    utimesSync(join(repo.dir, 'a.txt'), t, t);
    repo.git(['add', 'a.txt']); // the index records a.txt's size and mtime t
    repo.write('a.txt', 'a\nB\nc\n');
    utimesSync(join(repo.dir, 'a.txt'), t, t);
    utimesSync(join(repo.dir, '.git', 'index'), t, t);
    const files = await changesOf(repo.dir);
    expect(files).toEqual([{ path: 'a.txt', status: 'modified', added: 1, removed: 1 }]);
  });

  it('diffs one file, untracked and renamed ones included', async () => {
    const { facts, made } = await seat();
    repo.write('brand new.txt', 'hello\n', made.path);
    repo.git(['mv', 'old.txt', 'moved.txt'], made.path);
    const f = await locateRepo(port, made.path);
    if (!('top' in f)) throw new Error('no repo');
    const src = { top: f.top, gitDir: f.gitDir, base: 'main' };
    const added = await readFileDiff(port, src, { path: 'brand new.txt' });
    expect(added).toMatchObject({ truncated: false });
    if (!('patch' in added)) throw new Error('no patch');
    expect(added.patch).toContain('+hello');
    const moved = await readFileDiff(port, src, { path: 'moved.txt', from: 'old.txt' });
    if (!('patch' in moved)) throw new Error('no patch');
    expect(moved.patch).toContain('rename from old.txt');
    expect(facts.top).toBe(repo.dir);
  });
});

describe('the merge gate', () => {
  it('checks without touching anything, then merges cleanly into a base checked out in the main tree', async () => {
    const { made } = await seat();
    repo.write('feature.txt', 'f\n', made.path);
    repo.commitAll('feature', made.path);
    const before = repo.git(['rev-parse', 'main']).trim();
    const check = await checkMerge(port, made.path, 'main', made.branch);
    expect(check).toMatchObject({ ok: true, clean: true, upToDate: false });
    expect(repo.git(['rev-parse', 'main']).trim()).toBe(before);
    const done = await mergeInto(port, made.path, { into: 'main', branch: made.branch, message: 'Merge m1@rig' });
    expect(done).toMatchObject({ ok: true, into: 'main', updatedTree: repo.dir });
    expect(readFileSync(join(repo.dir, 'feature.txt'), 'utf8')).toBe('f\n');
    expect(repo.git(['status', '--porcelain'])).toBe('');
    expect(repo.git(['log', '-1', '--format=%P']).trim().split(' ')).toHaveLength(2);
    // Merged: the seat now has nothing the base lacks.
    expect(await changesOf(made.path, 'main')).toEqual([]);
  });

  it('refuses a conflict with MERGE_CONFLICT naming the files, and leaves the base where it was', async () => {
    const { made } = await seat();
    repo.write('a.txt', 'seat\n', made.path);
    repo.commitAll('seat edit', made.path);
    repo.write('a.txt', 'main\n');
    const baseOid = repo.commitAll('main edit');
    const r = await mergeInto(port, made.path, { into: 'main', branch: made.branch, message: 'Merge' });
    expect(r).toMatchObject({ ok: false, code: 'MERGE_CONFLICT', evidence: { files: ['a.txt'] } });
    expect(repo.git(['rev-parse', 'main']).trim()).toBe(baseOid);
    expect(repo.git(['status', '--porcelain'])).toBe('');
    expect(readFileSync(join(repo.dir, 'a.txt'), 'utf8')).toBe('main\n');
  });

  it('moves a base that is not checked out anywhere by compare-and-swap', async () => {
    repo.git(['checkout', '-q', '-b', 'other']);
    const { made } = await seat('m2');
    repo.write('f2.txt', 'x\n', made.path);
    repo.commitAll('f2', made.path);
    const r = await mergeInto(port, made.path, { into: 'main', branch: made.branch, message: 'Merge' });
    expect(r).toMatchObject({ ok: true, into: 'main' });
    expect(r.ok && 'updatedTree' in r ? r.updatedTree : undefined).toBeUndefined();
    expect(repo.git(['show', 'main:f2.txt'])).toBe('x\n');
  });

  it('refuses over local changes in the base tree that the merge would overwrite, changing nothing', async () => {
    const { made } = await seat();
    repo.write('a.txt', 'seat\n', made.path);
    repo.commitAll('seat edit', made.path);
    repo.write('a.txt', 'person is editing\n');
    const baseOid = repo.git(['rev-parse', 'main']).trim();
    const r = await mergeInto(port, made.path, { into: 'main', branch: made.branch, message: 'Merge' });
    expect(r).toMatchObject({ ok: false, code: 'WORKTREE_DIRTY' });
    expect(repo.git(['rev-parse', 'main']).trim()).toBe(baseOid);
    expect(readFileSync(join(repo.dir, 'a.txt'), 'utf8')).toBe('person is editing\n');
  });
});

describe('removing a worktree', () => {
  it('refuses with WORKTREE_DIRTY naming what would be lost, and removes when forced, keeping the branch', async () => {
    const { made } = await seat();
    repo.write('w.txt', 'w\n', made.path);
    repo.commitAll('ahead', made.path);
    repo.write('u.txt', 'u\n', made.path);
    const o = { repoDir: repo.dir, branch: made.branch, base: 'main' };
    const refused = await removeWorktree(port, o);
    expect(refused).toMatchObject({ ok: false, code: 'WORKTREE_DIRTY', evidence: { uncommitted: ['u.txt'] } });
    expect(refused.ok ? [] : refused.evidence?.commits).toHaveLength(1);
    expect(existsSync(made.path)).toBe(true);
    const forced = await removeWorktree(port, { ...o, force: true });
    expect(forced).toMatchObject({ ok: true, branchDeleted: false, keptCommits: 1 });
    expect(existsSync(made.path)).toBe(false);
    expect(repo.git(['rev-parse', '--verify', '-q', 'refs/heads/rigdesk/rig/m1']).trim()).toMatch(/^[0-9a-f]{40}$/);
  });

  it('removes a clean, merged worktree and its branch', async () => {
    const { made } = await seat();
    const r = await removeWorktree(port, { repoDir: repo.dir, branch: made.branch, base: 'main' });
    expect(r).toMatchObject({ ok: true, branchDeleted: true });
    expect(existsSync(made.path)).toBe(false);
    expect(repo.git(['branch', '--list', 'rigdesk/*'])).toBe('');
  });
});

describe('a port over a host exec (each argument quoted for a remote shell)', () => {
  /** What ssh does with a command: one string, run by a shell on the other side. */
  const viaShell: Exec = (file, args, opts) => liveExec('sh', ['-c', remoteCommand(file, args)], { ...opts, env });

  it('makes the worktree, reads changes with hostile names, and counts its git runs', async () => {
    const counted = countingExec(viaShell);
    const remote = execGitPort(counted);
    const { made } = await seat('m9', remote);
    repo.write("it's $(touch pwned) `x`.txt", 'a\nb\n', made.path);
    const files = await changesOf(made.path, 'main', remote);
    expect(files).toEqual([{ path: "it's $(touch pwned) `x`.txt", status: 'added', added: 2, removed: 0 }]);
    expect(existsSync(join(made.path, 'pwned'))).toBe(false);
    const st = await readStatus(remote, made.path);
    expect('entries' in st && st.entries.map((e) => e.path)).toEqual(["it's $(touch pwned) `x`.txt"]);
    expect(counted.count).toBeGreaterThan(0);
  });
});
