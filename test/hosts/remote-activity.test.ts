import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { ActivityMonitor, type ActivityChange } from '../../src/main/engine/activity/monitor';
import type { Engine } from '../../src/main/engine/engine';
import { controlPathFor } from '../../src/main/engine/hosts/ssh';
import { RigWorld } from '../support/rig';
import { closeMaster, sshdMissing, TestSshd } from '../support/sshd';
import { waitFor } from '../support/tmux';

describe.skipIf(!!sshdMissing())(
  'activity of a remote seat (its pane piped into a fifo on the host, read over the shared ssh connection)',
  () => {
    let w: RigWorld;
    let sshd: TestSshd;
    let m: ActivityMonitor | undefined;
    beforeEach(async () => {
      w = new RigWorld();
      sshd = await new TestSshd().start();
    });
    afterEach(async () => {
      m?.stop();
      closeMaster(controlPathFor(w.home, 'box'));
      await sshd?.cleanup();
      await w.shutdown();
    });

    const up = async () => {
      const spec = w.spec(
        'rig.yaml',
        sshd.rigYaml('mix', [
          `{ id: r1, runtime: shell, cwd: ${sshd.remoteDir}, command: bash, args: ["--noprofile", "--norc"], host: box }`,
        ]),
      );
      expect((await w.cli(['up', spec])).code).toBe(0);
    };
    const remoteTmux = (args: string[]) => sshd.asRemote(['tmux', '-L', sshd.tmuxSocket, ...args]).trim();
    /** A monitor on `e`, once the seat is watched the given way. */
    const watching = async (e: Engine, kind: 'remote-pipe' | 'control') => {
      m = new ActivityMonitor(e.ports, { fallbackMs: 60_000 });
      await m.start();
      await waitFor(() => m!.watchKind('r1@mix') === kind, { what: `the seat watched by ${kind}` });
      return m;
    };

    it("hears working and idle from the remote pane's output, long before the fallback pass", async () => {
      await up();
      const e = w.engine();
      m = new ActivityMonitor(e.ports, { fallbackMs: 60_000 });
      const changes: ActivityChange[] = [];
      m.onChange((c) => changes.push(c));
      await m.start();
      await waitFor(() => changes.some((c) => c.seat === 'r1@mix' && c.label === 'idle'), { what: 'idle at start' });
      // The watch is an ssh client attaching on the host (~100-300 ms): output before it is attached
      // is only seen by the fallback pass, so let it attach first.
      await waitFor(() => m!.watchKind('r1@mix') === 'remote-pipe', { what: 'the remote watch started' });
      // Piped on the host, marked ours; no control client there.
      expect(remoteTmux(['display-message', '-p', '-t', 'r1@mix', '#{pane_pipe} #{@rigdesk_watch}'])).toMatch(
        /^1 \/tmp\/rigdesk-watch-\d+\/[0-9a-f]{16}\.fifo$/,
      );
      // The only control client there is the engine's held tmux client, which gets no pane output.
      const clients = remoteTmux(['list-clients', '-F', '#{client_control_mode} #{client_flags}']).trim();
      for (const c of clients.split('\n').filter(Boolean)) expect(c).toMatch(/^1 .*no-output/);
      await new Promise((r) => setTimeout(r, 1000));
      const t0 = Date.now();
      sshd.asRemote(['tmux', '-L', sshd.tmuxSocket, 'send-keys', '-t', 'r1@mix', 'sleep 3', 'Enter']);
      // Only the remote pane's output can explain reports within seconds of a 60 s fallback (latency
      // itself is a bench's to measure: a loaded CI machine is no place for a sub-second bound).
      const working = await waitFor(
        () => changes.find((c) => c.seat === 'r1@mix' && c.label === 'working' && c.at >= t0),
        { timeoutMs: 8000, intervalMs: 10, what: 'working' },
      );
      expect(working.at - t0).toBeLessThan(5000);
      const idle = await waitFor(
        () => changes.find((c) => c.seat === 'r1@mix' && c.label === 'idle' && c.at > working.at),
        { timeoutMs: 12_000, intervalMs: 10, what: 'idle again' },
      );
      expect(idle.at - t0).toBeLessThan(3000 + 8000);
    });

    it("respawning the remote pane while it floods leaves the host's tmux server up; a person's own pipe there is kept", async () => {
      await up();
      const e = w.engine();
      await watching(e, 'remote-pipe');
      const pid = remoteTmux(['display-message', '-p', '#{pid}']);
      for (let i = 0; i < 4; i++) {
        remoteTmux(['send-keys', '-t', 'r1@mix', 'yes rigdesk-flood-line-of-some-length', 'Enter']);
        await new Promise((r) => setTimeout(r, 200 + 50 * i));
        remoteTmux(['respawn-pane', '-k', '-t', 'r1@mix', 'bash --noprofile --norc']);
        await new Promise((r) => setTimeout(r, 200));
        expect(remoteTmux(['display-message', '-p', '#{pid}'])).toBe(pid);
      }
      m!.stop();
      // A pipe somebody else set on the pane: left alone, and the seat is watched by a control client.
      remoteTmux(['pipe-pane', '-t', 'r1@mix', 'cat > /dev/null']);
      await watching(e, 'control');
      expect(remoteTmux(['display-message', '-p', '-t', 'r1@mix', '#{pane_pipe}'])).toBe('1');
    });

    it('a person who replaces our pipe on the host keeps theirs: the watch ends with our writer and a control client takes over', async () => {
      await up();
      await watching(w.engine(), 'remote-pipe');
      remoteTmux(['pipe-pane', '-t', 'r1@mix', `cat >> ${sshd.remoteDir}/their-log.txt`]);
      await waitFor(() => m!.watchKind('r1@mix') === 'control', { timeoutMs: 8000, what: 'a control client instead' });
      remoteTmux(['send-keys', '-t', 'r1@mix', 'echo their-line', 'Enter']);
      await waitFor(() => sshd.asRemote(['cat', `${sshd.remoteDir}/their-log.txt`]).includes('their-line'), {
        what: 'their pipe still receives the output',
      });
      expect(m!.watchKind('r1@mix')).toBe('control');
    });
  },
);
