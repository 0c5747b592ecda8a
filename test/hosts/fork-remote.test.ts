import { beforeEach, describe, expect, it } from 'vitest';
import type { RigWorld } from '../support/rig';
import { installRemoteClaudeStandIn, remoteTranscript } from '../support/remote-claude';
import { sshdMissing, sshWorldPerTest, type TestSshd } from '../support/sshd';
import { waitFor } from '../support/tmux';

/**
 * `rigdesk fork <seat> --as <member>` of a Claude-style seat on another host (real sshd on
 * 127.0.0.1, real tmux on both sides, a STAND-IN claude program on the host): the source's
 * conversation, its transcript and its custody are read on that host, the fork is a new seat on
 * the same host, and its new conversation is proved by the host's own process argv and roster. A
 * writer of X elsewhere on the host, or a host that does not answer, refuses with nothing created.
 */
describe.skipIf(!!sshdMissing())('fork of a seat on another host (real sshd, stand-in claude on the host)', () => {
  let w: RigWorld;
  let sshd: TestSshd;
  const world = sshWorldPerTest();
  beforeEach(() => ({ w, sshd } = world));

  async function upRemote(): Promise<{ id: string; transcript: string; bin: string; configDir: string }> {
    const { bin, configDir } = installRemoteClaudeStandIn(sshd);
    const spec = w.spec(
      'rig.yaml',
      sshd.rigYaml('mix', [
        `{ id: c, runtime: claude-code, cwd: ${sshd.remoteDir}, command: ${bin}, host: box, env: { CLAUDE_CONFIG_DIR: ${configDir} } }`,
      ]),
    );
    const up = await w.cli(['up', spec, '--json']);
    expect(up.code, up.stdout + up.stderr).toBe(0);
    const id = up.json.seats[0].launched.conversationId as string;
    expect(id).toMatch(/^[0-9a-f-]{36}$/);
    const transcript = remoteTranscript(sshd, configDir, id);
    await waitFor(() => sshd.existsHost(transcript), { what: "the stand-in's transcript on the host" });
    return { id, transcript, bin, configDir };
  }
  const bySeat = (seats: { seat: string }[]) =>
    Object.fromEntries(seats.map((s) => [s.seat, s])) as Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any
  const seatsInStore = () => {
    const e = w.engine();
    try {
      return e.store.rigs
        .seats()
        .map((s) => s.seat)
        .sort();
    } finally {
      e.store.close();
    }
  };

  it("forks the remote seat into a new seat on the same host with a new conversation (proved by the host's argv and roster); X's transcript is unchanged; one new remote session", async () => {
    const { id: X, transcript, configDir } = await upRemote();
    const plan = await w.cli(['fork', 'c@mix', '--as', 'd', '--plan', '--json']);
    expect(plan.code, plan.stdout + plan.stderr).toBe(0);
    // X's transcript was found on the host (by the adapter's own path rule), not on this machine.
    expect(plan.json.plan).toMatchObject({
      source: 'c@mix',
      seat: 'd@mix',
      runtime: 'claude-code',
      from: X,
      transcript,
      sourceRunning: true,
    });
    expect(sshd.remoteSessions()).toEqual(['c@mix']);
    const source = bySeat((await w.cli(['ps', '--json'])).json.seats)['c@mix'];

    const before = sshd.readHost(transcript);
    const f = await w.cli(['fork', 'c@mix', '--as', 'd', '--json']);
    expect(f.code, f.stdout + f.stderr).toBe(0);
    const NEW = f.json.result.conversationId as string;
    expect(f.json.result).toMatchObject({ seat: 'd@mix', outcome: 'forked', from: X });
    expect(NEW).toMatch(/^[0-9a-f-]{36}$/);
    expect(NEW).not.toBe(X);

    // Exactly one new session, on the host's Rigdesk tmux server; none on this machine.
    expect(sshd.remoteSessions().sort()).toEqual(['c@mix', 'd@mix']);
    expect(w.sessions()).toEqual([]);
    // The host's roster: the new seat runs there on NEW; the source still runs on X, untouched.
    const ps = bySeat((await w.cli(['ps', '--json'])).json.seats);
    expect(ps['d@mix']).toMatchObject({
      host: 'box',
      state: 'running',
      conversationId: NEW,
      server: `H:box|L:${sshd.tmuxSocket}`,
    });
    expect(ps['c@mix']).toMatchObject({ host: 'box', state: 'running', conversationId: X, pid: source.pid });
    // The process the host runs in the new seat names NEW through --fork-session: read on the host, as its user.
    const argv = sshd.asRemote(['cat', `/proc/${ps['d@mix'].pid}/cmdline`]).split('\0');
    expect(argv).toEqual(expect.arrayContaining(['--resume', X, '--fork-session', '--session-id', NEW]));
    // NEW's transcript on the host starts with X's lines; X's file is byte-for-byte what it was.
    const forked = sshd.readHost(remoteTranscript(sshd, configDir, NEW));
    expect(forked.startsWith(before)).toBe(true);
    expect(forked).toContain('standin-forked');
    expect(sshd.readHost(transcript)).toBe(before);

    // Recorded: a seat of the same pod on the same host, bound to NEW.
    const e = w.engine();
    try {
      expect(e.store.rigs.seat('d@mix')).toMatchObject({
        rig: 'mix',
        pod: 'team',
        member: 'd',
        host: 'box',
        runtime: 'claude-code',
        conversationId: NEW,
        env: { CLAUDE_CONFIG_DIR: configDir },
      });
    } finally {
      e.store.close();
    }
  });

  it('X open elsewhere on the host (a stand-in started there by hand with --resume X) refuses with CONVERSATION_LIVE_ELSEWHERE and creates nothing', async () => {
    const { id: X, bin, configDir } = await upRemote();
    sshd.startAsRemote([bin, '--resume', X], { CLAUDE_CONFIG_DIR: configDir });
    await waitFor(
      async () =>
        (await w.cli(['ps', '--all', '--json'])).json.others.some(
          (o: { conversationId?: string; host?: string }) => o.conversationId === X && o.host === 'box',
        ),
      { what: "the hand-started stand-in in the host's roster" },
    );

    const f = await w.cli(['fork', 'c@mix', '--as', 'd', '--json']);
    expect(f.code, f.stdout + f.stderr).toBe(1);
    expect(f.json).toMatchObject({ ok: false, code: 'CONVERSATION_LIVE_ELSEWHERE' });
    expect(f.json.evidence.host).toBe('box');
    expect(sshd.remoteSessions()).toEqual(['c@mix']);
    expect(seatsInStore()).toEqual(['c@mix']);
  });

  it("a launch refused on the host after the new seat was recorded leaves no seat behind (the stand-in's program gone from the host)", async () => {
    const { bin } = await upRemote();
    // The running source keeps its open script; the fork's launch finds no program on the host.
    sshd.asRemote(['rm', bin]);
    const f = await w.cli(['fork', 'c@mix', '--as', 'd', '--json']);
    expect(f.code, f.stdout + f.stderr).toBe(1);
    expect(f.json).toMatchObject({ ok: false, code: 'RUNTIME_NOT_INSTALLED', evidence: { host: 'box' } });
    expect(f.json.message).toContain('d@mix was not kept');
    expect(seatsInStore()).toEqual(['c@mix']);
    expect(sshd.remoteSessions()).toEqual(['c@mix']);
  });

  it('a host that does not answer refuses the fork with HOST_UNREACHABLE and nothing is created, there or here', async () => {
    await upRemote();
    await sshd.kill();
    const f = await w.cli(['fork', 'c@mix', '--as', 'd', '--json']);
    expect(f.code, f.stdout + f.stderr).toBe(1);
    expect(f.json).toMatchObject({ ok: false, code: 'HOST_UNREACHABLE', evidence: { host: 'box' } });
    expect(seatsInStore()).toEqual(['c@mix']);
    expect(w.sessions()).toEqual([]);
    await sshd.restart();
    expect(sshd.remoteSessions()).toEqual(['c@mix']);
  });
});
