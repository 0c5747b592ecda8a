import { beforeEach, describe, expect, it } from 'vitest';
import { countingExec, liveExec } from '../../src/main/engine/deps';
import { upRig } from '../../src/main/engine/services/up';
import { TmuxLinks } from '../../src/main/engine/tmux/held';
import type { RigWorld } from '../support/rig';
import { sshdMissing, sshWorldPerTest, type TestSshd } from '../support/sshd';
import { waitFor } from '../support/tmux';

/**
 * A remote host's own tmux server is reached through a held control-mode client too: `tmux -C`
 * on the host, one ssh session over the shared connection. Real sshd on 127.0.0.1, real tmux there.
 */
describe.skipIf(!!sshdMissing())('held tmux client on a remote host', () => {
  let w: RigWorld;
  let sshd: TestSshd;
  const world = sshWorldPerTest();
  beforeEach(() => ({ w, sshd } = world));

  it('captures and sends go over one held ssh session, answered as one-shot tmux there would', async () => {
    const spec = w.spec(
      'rig.yaml',
      [
        'name: far',
        'hosts:',
        sshd.hostYaml('box'),
        'pods:',
        '  - id: team',
        '    members:',
        `      - { id: r1, runtime: shell, cwd: ${sshd.remoteDir}, command: bash, args: ["--noprofile", "--norc"], host: box }`,
        '',
      ].join('\n'),
    );
    const exec = countingExec(liveExec);
    const e = w.engine({ exec, tmux: new TmuxLinks('held') });
    const up = await upRig(e, spec);
    expect(up.ok, JSON.stringify(up)).toBe(true);
    const live = e.store.sessions.live('r1@far')!;
    const client = e.client(live.server);
    expect(client.held).toBe(true);
    const screen = async () => (await client.run(['capture-pane', '-p', '-t', live.paneId])).stdout;
    // A person types once the shell shows its prompt; on a loaded machine bash over ssh takes a while.
    await waitFor(async () => /\$ *$/m.test(await screen()), { timeoutMs: 30_000, what: "the remote shell's prompt" });
    expect((await client.capture(live.paneId, 10)).ok).toBe(true);

    const before = exec.calls.length;
    // Before the first seat there was no server to attach to (that try, and the one-shot start).
    const held = e.deps.tmux.spawns;
    for (let i = 0; i < 5; i++) {
      const held = await client.run(['display-message', '-p', '-t', live.paneId, '#{pane_id} #{session_name}']);
      const once = await client.runOneShot(['display-message', '-p', '-t', live.paneId, '#{pane_id} #{session_name}']);
      expect(held).toEqual(once);
      expect(held.stdout).toBe(`${live.paneId} r1@far\n`);
    }
    // Only the one-shot halves spawned ssh.
    expect(exec.calls.length - before).toBe(5);
    const missing = await client.run(['has-session', '-t', 'nosuch']);
    expect(missing).toEqual(await client.runOneShot(['has-session', '-t', 'nosuch']));

    const sent = await client.paste(live.paneId, 'echo "far $((6*7)) ; é"', 'rigdesk-remote-test');
    expect(sent.ok).toBe(true);
    expect((await client.sendKeys(live.paneId, ['Enter'])).ok).toBe(true);
    await waitFor(async () => /^far 42 ; é$/m.test(await screen()), {
      what: 'the remote shell ran the pasted line',
    }).catch(async (e: Error) => {
      throw new Error(`${e.message}\n--- the pane:\n${await screen()}`);
    });
    expect(e.deps.tmux.spawns).toBe(held);
  });
});
