import { join } from 'node:path';
import { beforeEach, describe, expect, it } from 'vitest';
import type { RigWorld } from '../support/rig';
import { installRemoteClaudeStandIn, rebootRemoteTmux, remoteTranscript } from '../support/remote-claude';
import { sshdMissing, sshWorldPerTest, type TestSshd } from '../support/sshd';
import { waitFor } from '../support/tmux';

/**
 * `rigdesk restore` of a rig with a seat here and a Claude-style seat on another host (real sshd on
 * 127.0.0.1, real tmux on both sides, a STAND-IN claude program on the remote side): the remote
 * seat's facts come from that host, its resume is launched there, and a host that does not answer
 * refuses its seat and changes nothing while the rest of the rig restores.
 */
describe.skipIf(!!sshdMissing())('restore of a seat on another host (real sshd, stand-in claude on the host)', () => {
  let w: RigWorld;
  let sshd: TestSshd;
  const world = sshWorldPerTest();
  beforeEach(() => ({ w, sshd } = world));

  async function upMix(): Promise<{ id: string; transcript: string }> {
    const { bin, configDir } = installRemoteClaudeStandIn(sshd);
    const spec = w.spec(
      'rig.yaml',
      `${[
        'name: mix',
        'hosts:',
        sshd.hostYaml('box'),
        'pods:',
        '  - id: team',
        '    members:',
        '      - { id: here, runtime: shell, cwd: ., command: bash, args: ["--noprofile", "--norc"] }',
        `      - { id: c, runtime: claude-code, cwd: ${sshd.remoteDir}, command: ${bin}, host: box, env: { CLAUDE_CONFIG_DIR: ${configDir} } }`,
      ].join('\n')}\n`,
    );
    const up = await w.cli(['up', spec, '--json']);
    expect(up.code, up.stdout + up.stderr).toBe(0);
    const id = up.json.seats.find((s: { seat: string }) => s.seat === 'c@mix').launched.conversationId as string;
    expect(id).toMatch(/^[0-9a-f-]{36}$/);
    const transcript = remoteTranscript(sshd, configDir, id);
    await waitFor(() => sshd.existsHost(transcript), { what: "the stand-in's transcript on the host" });
    return { id, transcript };
  }
  const bySeat = (seats: { seat: string }[]) =>
    Object.fromEntries(seats.map((s) => [s.seat, s])) as Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any

  it("after both hosts reboot, resumes the remote seat on its host with --resume <id> (proved by the host's process argv), once, and restores the local seat", async () => {
    const { id, transcript } = await upMix();
    rebootRemoteTmux(sshd);
    w.tmux.kill();
    expect(sshd.remoteSessions()).toEqual([]);

    const plan = await w.cli(['restore', 'mix', '--plan', '--json']);
    expect(plan.code, plan.stdout + plan.stderr).toBe(0);
    expect(bySeat(plan.json.plan)['c@mix']).toMatchObject({ action: 'resume', conversationId: id });
    expect(bySeat(plan.json.plan)['c@mix'].why).toContain(transcript);

    const r = await w.cli(['restore', 'mix', '--json']);
    expect(r.code, r.stdout + r.stderr).toBe(0);
    const by = bySeat(r.json.seats);
    expect(by['c@mix'], r.stdout).toMatchObject({ outcome: 'resumed', conversationId: id });
    expect(by['here@mix']).toMatchObject({ outcome: 'fresh' });
    expect(r.json.outcome).toBe('fully_restored');
    expect(sshd.remoteSessions()).toEqual(['c@mix']);
    // The process the host runs in that seat names the conversation: read on the host, as its user.
    const ps = bySeat((await w.cli(['ps', '--json'])).json.seats);
    expect(ps['c@mix']).toMatchObject({ host: 'box', state: 'running', conversationId: id });
    const argv = sshd.asRemote(['cat', `/proc/${ps['c@mix'].pid}/cmdline`]).split('\0');
    expect(argv).toEqual(expect.arrayContaining(['--resume', id]));
    expect(sshd.readHost(transcript)).toContain('standin-resumed');

    // Again: the running seat is verified, not launched a second time.
    const again = await w.cli(['restore', 'mix', '--json']);
    expect(bySeat(again.json.seats)['c@mix'], again.stdout).toMatchObject({ outcome: 'running' });
    expect(sshd.remoteSessions()).toEqual(['c@mix']);
  });

  it('a transcript missing on the host leaves the remote seat awaiting a decision, with no pane created there', async () => {
    const { id, transcript } = await upMix();
    rebootRemoteTmux(sshd);
    sshd.asRemote(['rm', transcript]);

    const r = await w.cli(['restore', 'mix', '--json']);
    expect(r.code, r.stdout + r.stderr).toBe(0);
    expect(bySeat(r.json.seats)['c@mix'], r.stdout).toMatchObject({
      outcome: 'awaiting_decision',
      plan: 'awaiting_decision',
      conversationId: id,
    });
    expect(sshd.remoteSessions()).toEqual([]);
    const ds = (await w.cli(['decisions', '--json'])).json.decisions as { id: number; seat: string; reason: string }[];
    expect(ds.map((d) => [d.seat, d.reason])).toEqual([['c@mix', 'transcript_missing']]);
    // The person's answer launches on the host, as a new conversation.
    const fresh = await w.cli(['decide', String(ds[0]!.id), 'fresh', '--reason', 'transcript lost', '--json']);
    expect(fresh.json.result, fresh.stdout).toMatchObject({ outcome: 'fresh' });
    expect(sshd.remoteSessions()).toEqual(['c@mix']);
  });

  it("a resume the runtime reports missing on the host's screen is rolled back there (pane removed by identity) and awaits a decision", async () => {
    const { id } = await upMix();
    rebootRemoteTmux(sshd);
    sshd.asRemote(['touch', join(installRemoteClaudeStandIn(sshd).configDir, `missing-${id}`)]);

    const r = await w.cli(['restore', 'mix', '--json']);
    const c = bySeat(r.json.seats)['c@mix'];
    expect(c, r.stdout).toMatchObject({ outcome: 'awaiting_decision', plan: 'resume', conversationId: id });
    expect(c.evidence.screen).toContain(`No conversation found with session ID: ${id}`);
    expect(sshd.remoteSessions()).toEqual([]);
  });

  it('restart --keep-conversation replaces the agent in the same remote pane on the same conversation; fresh starts a new one there', async () => {
    const { id } = await upMix();
    const before = bySeat((await w.cli(['ps', '--json'])).json.seats)['c@mix'];
    const r = await w.cli(['restart', 'c@mix', '--keep-conversation', '--json']);
    expect(r.code, r.stdout + r.stderr).toBe(0);
    expect(r.json.result).toMatchObject({
      outcome: 'resumed',
      conversationId: id,
      paneId: before.paneId,
      sessionId: before.sessionId,
    });
    const after = bySeat((await w.cli(['ps', '--json'])).json.seats)['c@mix'];
    expect(after.pid).not.toBe(before.pid);
    expect(sshd.asRemote(['cat', `/proc/${after.pid}/cmdline`]).split('\0')).toEqual(
      expect.arrayContaining(['--resume', id]),
    );
    expect(sshd.remoteSessions()).toEqual(['c@mix']);

    const f = await w.cli(['fresh', 'c@mix', '--reason=start over', '--json']);
    expect(f.code, f.stdout + f.stderr).toBe(0);
    expect(f.json.result.outcome).toBe('fresh');
    const now = bySeat((await w.cli(['ps', '--json'])).json.seats)['c@mix'];
    expect(now).toMatchObject({ host: 'box', state: 'running' });
    expect(now.conversationId).not.toBe(id);
    expect(sshd.remoteSessions()).toEqual(['c@mix']);
  });

  it('a host that does not answer: its seat is refused with HOST_UNREACHABLE and nothing of it changes; the local seat still restores', async () => {
    await upMix();
    const before = sshd.remoteSessions();
    expect(before).toEqual(['c@mix']);
    const live = w.engine().store.sessions.live('c@mix')!;
    w.tmux.kill();
    await sshd.kill();

    const r = await w.cli(['restore', 'mix', '--json']);
    expect(r.code, r.stdout + r.stderr).toBe(0);
    const by = bySeat(r.json.seats);
    expect(by['c@mix'], r.stdout).toMatchObject({ outcome: 'refused', code: 'HOST_UNREACHABLE' });
    expect(by['c@mix'].evidence).toMatchObject({ host: 'box' });
    expect(by['here@mix']).toMatchObject({ outcome: 'fresh' });
    expect(r.json.outcome).toBe('partially_restored');
    // Nothing was ended or decided from missing evidence: the remote row is still live, no decision opened.
    expect(w.engine().store.sessions.live('c@mix')).toMatchObject({ sessionId: live.sessionId, paneId: live.paneId });
    expect((await w.cli(['decisions', '--json'])).json.decisions).toEqual([]);
    // Restart, fresh and fork refuse the same way before stopping or creating anything.
    expect((await w.cli(['restart', 'c@mix', '--keep-conversation', '--json'])).json).toMatchObject({
      ok: false,
      code: 'HOST_UNREACHABLE',
    });
    expect((await w.cli(['fresh', 'c@mix', '--reason=x', '--json'])).json).toMatchObject({
      ok: false,
      code: 'HOST_UNREACHABLE',
    });
    expect((await w.cli(['fork', 'c@mix', '--as', 'd', '--json'])).json).toMatchObject({
      ok: false,
      code: 'HOST_UNREACHABLE',
    });
    expect(w.engine().store.rigs.seat('d@mix')).toBeUndefined();
    await sshd.restart();
    expect(sshd.remoteSessions()).toEqual(before);
    const ps = bySeat((await w.cli(['ps', '--json'])).json.seats);
    expect(ps['c@mix']).toMatchObject({ state: 'running', sessionId: live.sessionId });
  });
});
