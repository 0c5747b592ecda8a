import { beforeEach, describe, expect, it } from 'vitest';
import { TerminalHub } from '../../src/main/terminal/hub';
import type { RigWorld } from '../support/rig';
import { REMOTE_USER, sshdMissing, sshWorldPerTest, type TestSshd } from '../support/sshd';
import { waitFor } from '../support/tmux';
import { waitForExit } from '../agents/claude-run';

describe.skipIf(!!sshdMissing())(
  'live terminal of a remote seat (node-pty running ssh + tmux attach on the host)',
  () => {
    let w: RigWorld;
    let sshd: TestSshd;
    const world = sshWorldPerTest();
    beforeEach(() => ({ w, sshd } = world));

    it('streams the remote pane, carries keystrokes to it, resizes it through the host, and ends only its own client', async () => {
      const spec = w.spec(
        'rig.yaml',
        sshd.rigYaml('mix', [
          `{ id: r1, runtime: shell, cwd: ${sshd.remoteDir}, command: bash, args: ["--noprofile", "--norc"], host: box }`,
        ]),
      );
      expect((await w.cli(['up', spec])).code).toBe(0);
      await waitFor(async () => /[$#] *$/m.test((await w.cli(['capture', 'r1@mix'])).stdout), {
        what: 'remote shell prompt',
      });

      const engine = w.engine();
      const hub = new TerminalHub(engine);
      const owner = {};
      let out = '';
      let exited: string | undefined;
      const opened = await hub.open(owner, 'r1@mix', 100, 30, {
        frame: (b) => (out += Buffer.from(b).toString('latin1')),
        exit: (_t, why) => (exited = why),
      });
      expect(opened.ok, JSON.stringify(opened)).toBe(true);
      if (!opened.ok) return;
      const pid = hub.inspect(opened.term)!.pid;
      hub.input(owner, opened.term, new TextEncoder().encode('echo remote-$((40+2))-$(id -un)\r'));
      await waitFor(async () => out.includes(`remote-42-${REMOTE_USER}`), {
        what: 'the remote echo in the terminal stream',
      });
      hub.ack(owner, opened.term, out.length);

      expect((await hub.resize(owner, opened.term, 90, 25)).ok).toBe(true);
      await waitFor(
        async () =>
          sshd
            .asRemote([
              'tmux',
              '-L',
              sshd.tmuxSocket,
              'display-message',
              '-p',
              '-t',
              'r1@mix',
              '#{window_width}x#{window_height}',
            ])
            .trim() === '90x24',
        { what: 'the remote window at the viewer size less its status line' },
      );

      expect(hub.close(owner, opened.term).ok).toBe(true);
      expect(await waitForExit(pid, 5000)).toBe('exited');
      expect(exited).toBeUndefined();
      expect(sshd.remoteSessions()).toEqual(['r1@mix']);
      engine.store.close();
    });
  },
);
