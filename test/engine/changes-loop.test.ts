import { existsSync, readFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { dispatch } from '../../src/main/engine/api';
import { parcelWatchPort } from '../../src/main/engine/changes/parcel-port';
import type { Engine } from '../../src/main/engine/engine';
import { TestRepo } from '../support/git-repo';
import { RigWorld } from '../support/rig';
import { waitFor } from '../support/tmux';

/**
 * The work loop with real git and real tmux (shell seats, an in-process engine over a private
 * server): a worktree per seat made once and found again, the changes of each seat as the watch
 * sees its writes, overlaps and shared trees, `down` that never touches a worktree, the removal
 * that refuses to lose work, and the merge gate's four outcomes.
 */

const shell = (id: string, cwd: string, extra = '') =>
  `{ id: ${id}, runtime: shell, cwd: ${JSON.stringify(cwd)}, command: bash, args: ["--noprofile", "--norc"]${extra} }`;

function spec(repo: TestRepo, opts: { checks?: string } = {}): string {
  return [
    'name: wt',
    ...(opts.checks ? [`checks: ${JSON.stringify(opts.checks)}`] : []),
    'pods:',
    '  - id: work',
    '    worktree: true',
    '    members:',
    `      - ${shell('s1', repo.dir)}`,
    `      - ${shell('s2', repo.dir)}`,
    '  - id: plain',
    '    members:',
    `      - ${shell('p1', repo.dir)}`,
    `      - ${shell('p2', repo.dir)}`,
  ].join('\n');
}

describe('a worktree per seat, its changes, and the merge gate (real git, real tmux)', () => {
  let w: RigWorld;
  let repo: TestRepo;
  let e: Engine;
  const wt = (m: string) => join(w.home, 'worktrees', 'wt', m);

  beforeEach(() => {
    w = new RigWorld(TestRepo.env() as Record<string, string>);
    repo = new TestRepo('rd-wt-');
    repo.write('a.txt', 'one\ntwo\nthree\n');
    repo.write('b.txt', 'bee\n');
    repo.commitAll('base');
    e = w.engine();
  });
  afterEach(async () => {
    await e.ports.changes.close();
    await w.shutdown();
    repo.remove();
  });

  async function up(checks?: string) {
    const r = await dispatch(e, 'up', { spec: w.spec('wt.yaml', spec(repo, { checks })) });
    expect(r.ok, JSON.stringify(r)).toBe(true);
  }

  const list = async () => {
    const r = await dispatch(e, 'changes.list', { rig: 'wt' });
    if (!r.ok) throw new Error(r.message);
    return new Map(r.seats.map((s) => [s.seat, s]));
  };

  it('makes each seat its worktree on rigdesk/<rig>/<member>, runs the seat there, and finds it again on relaunch', async () => {
    await up();
    for (const m of ['s1', 's2']) {
      expect(existsSync(join(wt(m), 'a.txt'))).toBe(true);
      expect(repo.git(['rev-parse', '--abbrev-ref', 'HEAD'], wt(m)).trim()).toBe(`rigdesk/wt/${m}`);
    }
    const paths = w.tmux.run(['list-panes', '-a', '-F', '#{@rigdesk_seat} #{pane_current_path}']);
    expect(paths).toContain(`s1@wt ${wt('s1')}`);
    expect(paths).toContain(`p1@wt ${repo.dir}`);
    const ps = await dispatch(e, 'ps', { rig: 'wt', changes: true });
    if (!ps.ok) throw new Error(ps.message);
    const s1 = ps.seats.find((s) => s.seat === 's1@wt')!;
    expect(s1.worktree).toEqual({ path: wt('s1'), branch: 'rigdesk/wt/s1', base: 'main' });
    expect(s1.changes).toMatchObject({ files: 0, added: 0, removed: 0 });

    // Work left in the worktree survives a stop and a launch: the same worktree, not a new one.
    repo.write('new.txt', 'kept\n', wt('s1'));
    expect((await dispatch(e, 'stop', { seat: 's1@wt' })).ok).toBe(true);
    expect((await dispatch(e, 'launch', { seat: 's1@wt' })).ok).toBe(true);
    expect(readFileSync(join(wt('s1'), 'new.txt'), 'utf8')).toBe('kept\n');
    const made = e.store.events.list({ seat: 's1@wt' }).filter((x) => x.kind === 'worktree.created');
    expect(made).toHaveLength(1);
  });

  it('after a killed tmux server, restore brings each seat back in the same worktree, its work there', async () => {
    await up();
    repo.write('wip.txt', 'mid-change\n', wt('s2'));
    w.tmux.kill(); // the simulated reboot
    const r = await dispatch(e, 'restore', { target: 'wt' });
    expect(r.ok, JSON.stringify(r).slice(0, 600)).toBe(true);
    const paths = await waitFor(() => {
      const out = w.tmux.tryRun(['list-panes', '-a', '-F', '#{@rigdesk_seat} #{pane_current_path}']);
      return out.ok && out.out.includes('s2@wt') ? out.out : undefined;
    });
    expect(paths).toContain(`s1@wt ${wt('s1')}`);
    expect(paths).toContain(`s2@wt ${wt('s2')}`);
    expect(readFileSync(join(wt('s2'), 'wip.txt'), 'utf8')).toBe('mid-change\n');
    expect(e.store.events.list({ rig: 'wt' }).filter((x) => x.kind === 'worktree.created')).toHaveLength(2);
  });

  it('reports changes from the watch, overlaps between worktrees, and seats that share one tree', async () => {
    await up();
    e.ports.changes.startWatching(parcelWatchPort());
    expect((await list()).get('p1@wt')!.sharedWith).toEqual(['p2@wt']);
    repo.write('a.txt', 'one\nTWO\nthree\nfour\n', wt('s1'));
    repo.write('c.txt', 'sea\n', wt('s1'));
    const s1 = await waitFor(
      async () => {
        const r = await dispatch(e, 'ps', { rig: 'wt' });
        const row = r.ok ? r.seats.find((s) => s.seat === 's1@wt') : undefined;
        return row?.changes?.files === 2 ? row : undefined;
      },
      { timeoutMs: 10_000, what: "s1's two changed files in ps" },
    );
    expect(s1.changes).toMatchObject({ files: 2, added: 3, removed: 1 });
    const files = (await list()).get('s1@wt')!.files;
    expect(files).toEqual([
      { path: 'a.txt', status: 'modified', added: 2, removed: 1 },
      { path: 'c.txt', status: 'added', added: 1, removed: 0 },
    ]);

    repo.write('a.txt', 'ONE\ntwo\nthree\n', wt('s2'));
    const over = await waitFor(
      async () => {
        const s = (await list()).get('s2@wt')!;
        return s.overlaps.length ? s.overlaps : undefined;
      },
      { timeoutMs: 10_000, what: 'the overlap of s1 and s2 on a.txt' },
    );
    expect(over).toEqual([{ seat: 's1@wt', paths: ['a.txt'] }]);
    const ps = await dispatch(e, 'ps', { rig: 'wt' });
    if (!ps.ok) throw new Error(ps.message);
    expect(ps.seats.find((s) => s.seat === 's1@wt')!.changes!.overlapsWith).toEqual(['s2@wt']);

    repo.git(['checkout', '--', 'a.txt'], wt('s2'));
    await waitFor(async () => ((await list()).get('s2@wt')!.overlaps.length === 0 ? true : undefined), {
      timeoutMs: 10_000,
      what: 'the overlap to end',
    });

    const diff = await dispatch(e, 'changes.diff', { seat: 's1@wt', path: 'a.txt' });
    if (!diff.ok) throw new Error(diff.message);
    expect(diff.patch).toContain('-two\n+TWO');
    expect(diff.patch).not.toContain('c.txt');
  });

  it('down leaves a dirty worktree as it was; removal refuses to lose work unless forced, and keeps the branch', async () => {
    await up();
    repo.write('a.txt', 'dirty\n', wt('s1'));
    expect((await dispatch(e, 'down', { rig: 'wt' })).ok).toBe(true);
    expect(readFileSync(join(wt('s1'), 'a.txt'), 'utf8')).toBe('dirty\n');

    const refused = await dispatch(e, 'worktree.remove', { seat: 's1@wt' });
    expect(refused).toMatchObject({ ok: false, code: 'WORKTREE_DIRTY' });
    expect(existsSync(wt('s1'))).toBe(true);

    repo.commitAll('s1 work', wt('s1'));
    expect(await dispatch(e, 'worktree.remove', { seat: 's1@wt' })).toMatchObject({
      ok: false,
      code: 'WORKTREE_DIRTY',
    });
    const forced = await dispatch(e, 'worktree.remove', { seat: 's1@wt', force: true });
    expect(forced).toMatchObject({ ok: true, branchDeleted: false, keptCommits: 1 });
    expect(existsSync(wt('s1'))).toBe(false);
    expect(repo.git(['branch', '--list', 'rigdesk/wt/s1']).trim()).toContain('rigdesk/wt/s1');

    // A clean worktree with nothing the base lacks goes, with its branch.
    expect(await dispatch(e, 'worktree.remove', { seat: 's2@wt' })).toMatchObject({ ok: true, branchDeleted: true });
  });

  it('worktrees of one repository are made one at a time (forced interleaving: each `git worktree add` held 150 ms)', async () => {
    let now = 0;
    let most = 0;
    const held = w.engine({}, (built) => ({
      gitOn: (host) => {
        const port = built.gitOn(host);
        return {
          scratchCopy: (file) => port.scratchCopy(file),
          git: async (args, opts) => {
            if (!(args.includes('worktree') && args.includes('add'))) return port.git(args, opts);
            most = Math.max(most, ++now);
            try {
              await new Promise((r) => setTimeout(r, 150));
              return await port.git(args, opts);
            } finally {
              now--;
            }
          },
        };
      },
    }));
    const r = await dispatch(held, 'up', { spec: w.spec('wt.yaml', spec(repo)) });
    expect(r.ok, JSON.stringify(r)).toBe(true);
    for (const m of ['s1', 's2']) expect(existsSync(join(wt(m), 'a.txt'))).toBe(true);
    expect(most, 'worktree adds at once in one repository').toBe(1);
  });

  it('a worktree folder deleted by hand is reported on launch, not made anew', async () => {
    await up();
    expect((await dispatch(e, 'stop', { seat: 's1@wt' })).ok).toBe(true);
    rmSync(wt('s1'), { recursive: true, force: true });
    const r = await dispatch(e, 'launch', { seat: 's1@wt' });
    expect(r).toMatchObject({ ok: false, code: 'WORKTREE_MISSING' });
    expect(existsSync(wt('s1'))).toBe(false);
  });

  it('merges clean work into the base (its checkout too), refuses a conflict, a dirty tree and failing checks with the base unchanged', async () => {
    repo.git(['config', 'user.name', 'Test']);
    repo.git(['config', 'user.email', 'test@example.invalid']);
    await up('test ! -e FAIL');
    e.ports.changes.startWatching(parcelWatchPort());
    // s2's work merges: the base moves and its checkout (the repository's own folder) follows.
    repo.write('b.txt', 'bee\nmore\n', wt('s2'));
    repo.commitAll('s2: more bees', wt('s2'));
    await waitFor(async () => ((await list()).get('s2@wt')!.files.length === 1 ? true : undefined), {
      timeoutMs: 10_000,
      what: "s2's commit in its figures",
    });
    const merged = await dispatch(e, 'merge.run', { seat: 's2@wt' });
    expect(merged, JSON.stringify(merged)).toMatchObject({
      ok: true,
      into: 'main',
      upToDate: false,
      updatedTree: repo.dir,
    });
    expect(readFileSync(join(repo.dir, 'b.txt'), 'utf8')).toBe('bee\nmore\n');
    expect(merged.ok && merged.checks?.ok).toBe(true);
    // Against the moved base, s2 has nothing left to show.
    expect((await list()).get('s2@wt')!.files).toEqual([]);

    // Uncommitted work is refused before anything else.
    repo.write('b.txt', 'other bees\n', wt('s1'));
    expect(await dispatch(e, 'merge.run', { seat: 's1@wt' })).toMatchObject({ ok: false, code: 'WORKTREE_DIRTY' });

    // A conflict with what s2 merged: refused, naming the file; the base stays where it was.
    repo.commitAll('s1: other bees', wt('s1'));
    const before = repo.git(['rev-parse', 'main']).trim();
    const conflict = await dispatch(e, 'merge.run', { seat: 's1@wt' });
    expect(conflict).toMatchObject({ ok: false, code: 'MERGE_CONFLICT', evidence: { files: ['b.txt'] } });
    expect(repo.git(['rev-parse', 'main']).trim()).toBe(before);
    expect(repo.git(['status', '--porcelain'])).toBe('');

    // Failing checks: refused with their output; the base unchanged.
    repo.git(['reset', '-q', '--hard', 'main'], wt('s1'));
    repo.write('FAIL', 'x\n', wt('s1'));
    repo.commitAll('s1: breaks the checks', wt('s1'));
    const failed = await dispatch(e, 'merge.run', { seat: 's1@wt' });
    expect(failed).toMatchObject({ ok: false, code: 'CHECKS_FAILED' });
    expect(repo.git(['rev-parse', 'main']).trim()).toBe(before);
    const kinds = e.store.events.list({ rig: 'wt' }).map((x) => x.kind);
    expect(kinds.filter((k) => k === 'merge.done')).toHaveLength(1);
    expect(kinds.filter((k) => k === 'merge.refused')).toHaveLength(3);
  });

  it('sends a review to the seat through safe send: its pane shows the message, the log records it', async () => {
    await up();
    const r = await dispatch(e, 'review.send', {
      seat: 's1@wt',
      comments: [{ path: 'a.txt', line: 2, text: 'say why two is here' }],
      // up launches its seats side by side and answers sooner: s1 may still be starting.
      waitForIdle: 20,
    });
    expect(r, JSON.stringify(r)).toMatchObject({ ok: true });
    const pane = w.sessions().find((s) => s.seat === 's1@wt')!.id;
    await waitFor(
      () => w.tmux.run(['capture-pane', '-p', '-t', pane]).includes('a.txt:2: say why two is here') || undefined,
      { what: "the review in s1's pane" },
    );
    expect(e.store.events.list({ seat: 's1@wt' }).some((x) => x.kind === 'review.sent')).toBe(true);
  });

  it('refuses a worktree member whose cwd is not in a repository, at its line (NOT_A_REPO)', async () => {
    const bare = w.spec(
      'bare.yaml',
      ['name: nr', 'pods:', '  - id: p', '    members:', `      - ${shell('x', w.root, ', worktree: true')}`].join(
        '\n',
      ),
    );
    const r = await dispatch(e, 'up', { spec: bare });
    expect(r).toMatchObject({ ok: false, code: 'NOT_A_REPO' });
    expect(w.sessions()).toHaveLength(0);
  });
});
