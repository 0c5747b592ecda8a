import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { branchNameProblem, seatBranch } from '../../../src/main/engine/git/names';
import { parseMergeTree, parseRawNumstat, parseStatusV2, parseWorktreeList } from '../../../src/main/engine/git/parse';

/** Names git allows in a path, hostile ones included: spaces, tabs, newlines, a leading colon or dash. */
const hostileName = fc
  .array(fc.constantFrom('a', ' ', '\t', '\n', ':', '-', '"', '\\', 'é', '→', '1', '.', 'M', '\x01'), {
    minLength: 1,
    maxLength: 12,
  })
  .map((cs) => cs.join(''))
  .filter((s) => !s.includes('\0'));

describe('git output readers take file names as data', () => {
  it('pairs raw and numstat records by path, renames and binary files included', () => {
    const out = [
      ':100644 000000 de98044 0000000 D',
      'a.txt',
      ':100644 100644 87ae6b6 0000000 M',
      'b.bin',
      ':100644 100644 587be6b b77b4eb R050',
      'old.txt',
      'new.txt',
      ':000000 100644 0000000 07f33c4 A',
      'we ird\nname.txt',
      '0\t3\ta.txt',
      '-\t-\tb.bin',
      '1\t0\t',
      'old.txt',
      'new.txt',
      '2\t0\twe ird\nname.txt',
      '',
    ].join('\0');
    expect(parseRawNumstat(out)).toEqual([
      { path: 'a.txt', status: 'deleted', added: 0, removed: 3 },
      { path: 'b.bin', status: 'modified', added: 0, removed: 0, binary: true },
      { path: 'new.txt', from: 'old.txt', status: 'renamed', added: 1, removed: 0 },
      { path: 'we ird\nname.txt', status: 'added', added: 2, removed: 0 },
    ]);
  });

  it('reads any file name back exactly (property)', () => {
    fc.assert(
      fc.property(fc.uniqueArray(hostileName, { minLength: 1, maxLength: 6 }), fc.nat(500), (names, n) => {
        const raw = names.flatMap((p) => [':100644 100644 1111111 2222222 M', p]);
        const num = names.map((p) => `${n}\t${n + 1}\t${p}`);
        const files = parseRawNumstat(`${[...raw, ...num].join('\0')}\0`);
        expect(files.map((f) => f.path)).toEqual(names);
        expect(files.every((f) => f.added === n && f.removed === n + 1)).toBe(true);
      }),
    );
  });

  it('reads porcelain v2 status: paths with spaces, renames with their source, untracked', () => {
    const out = [
      '# branch.oid 3e20444b8a4beb8517d579f2ebec9233e744aab5',
      '# branch.head rigdesk/rig/m1',
      '1 .M N... 100644 100644 100644 87ae6b6 87ae6b6 a file with spaces.txt',
      '2 R. N... 100644 100644 100644 587be6b 587be6b R100 new name.txt',
      'old name.txt',
      'u UU N... 100644 100644 100644 100644 1111111 2222222 3333333 both.txt',
      '? -rf :x\nnewline',
      '',
    ].join('\0');
    const st = parseStatusV2(out);
    expect(st.head).toBe('rigdesk/rig/m1');
    expect(st.oid).toBe('3e20444b8a4beb8517d579f2ebec9233e744aab5');
    expect(st.entries).toEqual([
      { path: 'a file with spaces.txt', kind: 'changed', xy: '.M' },
      { path: 'new name.txt', from: 'old name.txt', kind: 'renamed', xy: 'R.' },
      { path: 'both.txt', kind: 'unmerged', xy: 'UU' },
      { path: '-rf :x\nnewline', kind: 'untracked', xy: '??' },
    ]);
  });

  it('reads the worktree list, a deleted folder as prunable', () => {
    const out =
      'worktree /r\0HEAD aaa\0branch refs/heads/main\0\0worktree /w t\0HEAD bbb\0branch refs/heads/rigdesk/x/y\0prunable gitdir file points to non-existent location\0\0worktree /d\0HEAD ccc\0detached\0locked\0\0';
    expect(parseWorktreeList(out)).toEqual([
      { path: '/r', head: 'aaa', branch: 'refs/heads/main' },
      { path: '/w t', head: 'bbb', branch: 'refs/heads/rigdesk/x/y', prunable: true },
      { path: '/d', head: 'ccc', detached: true, locked: true },
    ]);
  });

  it('reads merge-tree: the tree, then each conflicted path once', () => {
    expect(parseMergeTree('4093022\0a.txt\0b c.txt\0a.txt\0')).toEqual({
      tree: '4093022',
      conflicts: ['a.txt', 'b c.txt'],
    });
    expect(parseMergeTree('4093022\0')).toEqual({ tree: '4093022', conflicts: [] });
  });
});

describe('branch names', () => {
  it('names a seat branch rigdesk/<rig>/<member>', () => {
    expect(seatBranch('crew', 'lead')).toBe('rigdesk/crew/lead');
    expect(branchNameProblem(seatBranch('crew', 'lead'))).toBeUndefined();
  });

  it.each([
    ['-b', 'start'],
    ['a..b', '..'],
    ['x.lock', '.lock'],
    ['a b', 'spaces'],
    ['a/.hidden', 'start with'],
    ['a//b', '//'],
    ['a@{1}', '@{'],
    ['tail.', 'end'],
    ['ctl\x07', 'control'],
  ])('refuses %j (%s)', (name, why) => {
    expect(branchNameProblem(name)).toContain(why);
  });
});
