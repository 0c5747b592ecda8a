import { beforeEach, describe, expect, it } from 'vitest';
import { cmdlinesHolding, environOf, filesNamed, HOSTILE_FOLDERS, watchCmdlines } from '../support/hostile';
import type { RigWorld } from '../support/rig';
import { REMOTE_HOME, sshdMissing, sshWorldPerTest, type TestSshd } from '../support/sshd';

/**
 * The same hostile input as test/engine/hostile-input.test.ts, for seats on another host (real
 * sshd on 127.0.0.1, real tmux there): the remote launch builds its own tmux command lines (the
 * server-starting one goes over ssh), so a folder name and a seat's env are checked there too.
 */

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

describe.skipIf(!!sshdMissing())('hostile input to a seat on another host (real sshd, real tmux there)', () => {
  let w: RigWorld;
  let sshd: TestSshd;
  const world = sshWorldPerTest();
  beforeEach(() => ({ w, sshd } = world));

  /** The host's panes on its Rigdesk server: seat tag, pid (the host's own) and current path. */
  function remotePanes(): { seat: string; pid: number; path: string }[] {
    return sshd
      .asRemote([
        'tmux',
        '-L',
        sshd.tmuxSocket,
        'list-panes',
        '-a',
        '-F',
        // `|`: the host's tmux has no UTF-8 locale in a plain login and prints a control byte as `_`.
        '#{@rigdesk_seat}|#{pane_pid}|#{pane_current_path}',
      ])
      .trim()
      .split('\n')
      .filter(Boolean)
      .map((l) => {
        const [seat, pid, ...path] = l.split('|');
        return { seat: seat!, pid: Number(pid), path: path.join('|') };
      });
  }

  it('a remote seat in a folder named x#(touch ran.txt) or y#{pane_id} starts in exactly that folder, nothing runs, and its env is in no command line here or there', async () => {
    const secret = `rd-secret-${process.pid}-${Math.random().toString(36).slice(2, 10)}`;
    for (const d of HOSTILE_FOLDERS) sshd.asRemote(['mkdir', '-p', `${sshd.remoteDir}/${d}`]);
    const spec = w.spec(
      'rig.yaml',
      sshd.rigYaml(
        'far',
        HOSTILE_FOLDERS.map(
          (d, i) =>
            `{ id: r${i}, runtime: shell, cwd: ${JSON.stringify(`${sshd.remoteDir}/${d}`)}, command: bash, args: ["--noprofile", "--norc"], host: box, env: { MY_API_KEY: ${secret} } }`,
        ),
      ),
    );
    const scan = watchCmdlines(secret);
    const up = await w.cli(['up', spec, '--json']);
    expect(up.code, up.stdout + up.stderr).toBe(0);
    await sleep(1000);
    // This machine's /proc shows the host's processes too (its PID namespace is a child of ours);
    // the host's own /proc is read as well.
    expect(scan.stop()).toEqual([]);
    expect(cmdlinesHolding(secret, sshd.hostPath('/proc'))).toEqual([]);
    const panes = remotePanes();
    for (const [i, d] of HOSTILE_FOLDERS.entries()) {
      const pane = panes.find((p) => p.seat === `r${i}@far`);
      expect(pane?.path, d).toBe(`${sshd.remoteDir}/${d}`);
      expect(environOf(pane!.pid, sshd.hostPath('/proc')).MY_API_KEY).toBe(secret);
    }
    expect(filesNamed('ran.txt', [sshd.hostPath(REMOTE_HOME), w.root, process.cwd()], 4)).toEqual([]);
  });
});
