import { beforeEach, describe, expect, it } from 'vitest';
import type { RigWorld } from '../support/rig';
import { REMOTE_HOME, sshdMissing, sshWorldPerTest, type TestSshd } from '../support/sshd';

/**
 * A seat on another host with `worktree: true` (real sshd on 127.0.0.1, real git and tmux there):
 * its worktree is made on that host, under the host user's Rigdesk folder, the seat runs in it,
 * and its changes and diff come from git there, through the host's connection.
 */

const GIT_ID = {
  GIT_AUTHOR_NAME: 'Test',
  GIT_AUTHOR_EMAIL: 'test@example.invalid',
  GIT_COMMITTER_NAME: 'Test',
  GIT_COMMITTER_EMAIL: 'test@example.invalid',
  GIT_CONFIG_NOSYSTEM: '1',
};

describe.skipIf(!!sshdMissing())("a remote seat's worktree and changes (real sshd, real git there)", () => {
  let w: RigWorld;
  let sshd: TestSshd;
  const world = sshWorldPerTest();
  beforeEach(() => ({ w, sshd } = world));

  it('makes the worktree on the host, runs the seat there, and reads its changes and diff over the connection', async () => {
    const repo = `${sshd.remoteDir}/repo`;
    sshd.writeHost(`${repo}/a.txt`, 'one\ntwo\n');
    sshd.asRemote(['sh', '-c', 'cd "$1" && git init -q -b main && git add -A && git commit -q -m base', 'sh', repo], {
      env: GIT_ID,
    });
    const spec = w.spec(
      'rig.yaml',
      sshd.rigYaml('far', [
        `{ id: r1, runtime: shell, cwd: ${JSON.stringify(repo)}, command: bash, args: ["--noprofile", "--norc"], host: box, worktree: true }`,
      ]),
    );
    const up = await w.cli(['up', spec, '--json']);
    expect(up.code, up.stdout + up.stderr).toBe(0);
    const tree = `${REMOTE_HOME}/.rigdesk/worktrees/far/r1`;
    expect(sshd.existsHost(`${tree}/a.txt`)).toBe(true);
    expect(sshd.asRemote(['git', '-C', tree, 'rev-parse', '--abbrev-ref', 'HEAD']).trim()).toBe('rigdesk/far/r1');
    const panes = sshd.asRemote(['tmux', '-L', sshd.tmuxSocket, 'list-panes', '-a', '-F', '#{pane_current_path}']);
    expect(panes.trim()).toBe(tree);

    sshd.writeHost(`${tree}/a.txt`, 'one\nTWO\n');
    sshd.writeHost(`${tree}/new.txt`, 'fresh\n');
    const ch = await w.cli(['changes', 'r1@far', '--json']);
    expect(ch.code, ch.stdout + ch.stderr).toBe(0);
    expect(ch.json).toMatchObject({
      ok: true,
      seats: [
        {
          seat: 'r1@far',
          host: 'box',
          worktree: tree,
          branch: 'rigdesk/far/r1',
          base: 'main',
          files: [
            { path: 'a.txt', status: 'modified', added: 1, removed: 1 },
            { path: 'new.txt', status: 'added', added: 1, removed: 0 },
          ],
          overlaps: [],
        },
      ],
    });
    const diff = await w.cli(['diff', 'r1@far', '--file', 'a.txt']);
    expect(diff.stdout).toContain('-two\n+TWO');
    const ps = await w.cli(['ps', '--json']);
    expect(ps.json.seats[0]).toMatchObject({
      worktree: { path: tree, branch: 'rigdesk/far/r1' },
      changes: { files: 2 },
    });

    // down leaves it, with its work, on the host.
    expect((await w.cli(['down', 'far'])).code).toBe(0);
    expect(sshd.readHost(`${tree}/new.txt`)).toBe('fresh\n');
  });
});
