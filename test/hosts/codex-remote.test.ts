import { beforeEach, describe, expect, it } from 'vitest';
import type { RigWorld } from '../support/rig';
import { rebootRemoteTmux } from '../support/remote-claude';
import { installRemoteCodexStandIn, remoteRollout } from '../support/remote-codex';
import { sshdMissing, sshWorldPerTest, type TestSshd } from '../support/sshd';
import { waitFor } from '../support/tmux';

/**
 * A Codex seat on another host (real sshd on 127.0.0.1, real tmux on both sides, a STAND-IN codex
 * program on the host that keeps rollouts and writer locks where Codex does): its thread is named
 * by the writer lock the host's /proc/locks shows, restore resumes it there with `resume <id>`,
 * a writer of the thread elsewhere on the host refuses launch and send, and fork makes a new
 * thread on the same host leaving the source's rollout byte-for-byte.
 */
describe.skipIf(!!sshdMissing())('Codex seats on another host (real sshd, stand-in codex on the host)', () => {
  let w: RigWorld;
  let sshd: TestSshd;
  const world = sshWorldPerTest();
  beforeEach(() => ({ w, sshd } = world));

  const bySeat = (seats: { seat: string }[]) =>
    Object.fromEntries(seats.map((s) => [s.seat, s])) as Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any
  const cmdline = (pid: number) => sshd.asRemote(['cat', `/proc/${pid}/cmdline`]).split('\0');

  /** Up a rig with one Codex seat on the host; its thread is known only once the host's roster reads its writer lock. */
  async function upCodex(): Promise<{ id: string; rollout: string; bin: string; home: string; pid: number }> {
    const { bin, home } = installRemoteCodexStandIn(sshd);
    const spec = w.spec(
      'rig.yaml',
      sshd.rigYaml('mix', [
        `{ id: x, runtime: codex, cwd: ${sshd.remoteDir}, command: ${bin}, host: box, env: { CODEX_HOME: ${home} } }`,
      ]),
    );
    const up = await w.cli(['up', spec, '--json']);
    expect(up.code, up.stdout + up.stderr).toBe(0);
    // Codex chooses its thread id after launch: nothing names it yet.
    expect(up.json.seats[0].launched.conversationId).toBeUndefined();
    let row: any; // eslint-disable-line @typescript-eslint/no-explicit-any
    await waitFor(
      async () => {
        row = bySeat((await w.cli(['ps', '--json'])).json.seats)['x@mix'];
        return row?.state === 'running' && typeof row.conversationId === 'string';
      },
      { what: "the Codex seat's thread named by the host's roster" },
    );
    const id = row.conversationId as string;
    expect(id).toMatch(/^[0-9a-f-]{36}$/);
    const rollout = remoteRollout(sshd, home, id);
    expect(rollout, "the stand-in's rollout where findCodexRollout looks").toBeDefined();
    return { id, rollout: rollout!, bin, home, pid: row.pid };
  }

  it("a fresh Codex seat on the host is bound to the thread its writer lock names (read from the host's /proc/locks), on that host", async () => {
    const { id, home, pid } = await upCodex();
    expect(cmdline(pid)).not.toContain(id); // a fresh start: only the lock names the thread
    const e = w.engine();
    try {
      expect(e.store.rigs.seat('x@mix')).toMatchObject({ host: 'box', runtime: 'codex', conversationId: id });
      expect(e.store.db.prepare('SELECT host, home FROM conversations WHERE id = ?').get(id)).toEqual({
        host: 'box',
        home,
      });
      const bound = e.store.db.prepare("SELECT data_json FROM events WHERE kind = 'seat.conversation_bound'").all() as {
        data_json: string;
      }[];
      expect(bound.map((b) => JSON.parse(b.data_json))).toEqual([
        expect.objectContaining({ to: id, source: 'writer_lock', pid }),
      ]);
    } finally {
      e.store.close();
    }
  });

  it("after the host's Rigdesk tmux server goes away, restore resumes the seat there with `resume <id>` (proved by the host's process argv), once", async () => {
    const { id, rollout } = await upCodex();
    rebootRemoteTmux(sshd);
    expect(sshd.remoteSessions()).toEqual([]);

    const plan = await w.cli(['restore', 'mix', '--plan', '--json']);
    expect(plan.code, plan.stdout + plan.stderr).toBe(0);
    expect(plan.json.plan[0], plan.stdout).toMatchObject({ seat: 'x@mix', action: 'resume', conversationId: id });
    expect(plan.json.plan[0].why).toContain(rollout);

    const r = await w.cli(['restore', 'mix', '--json']);
    expect(r.code, r.stdout + r.stderr).toBe(0);
    expect(r.json.seats[0], r.stdout).toMatchObject({
      seat: 'x@mix',
      outcome: 'resumed',
      conversationId: id,
      evidence: { source: 'writer_lock' },
    });
    expect(sshd.remoteSessions()).toEqual(['x@mix']);
    const ps = bySeat((await w.cli(['ps', '--json'])).json.seats)['x@mix'];
    expect(ps).toMatchObject({ host: 'box', state: 'running', conversationId: id });
    expect(cmdline(ps.pid)).toEqual(expect.arrayContaining(['resume', id]));
    await waitFor(() => sshd.readHost(rollout).includes('standin-resumed'), {
      what: "the resumed stand-in writing X's rollout",
    });

    const again = await w.cli(['restore', 'mix', '--json']);
    expect(again.json.seats[0], again.stdout).toMatchObject({ outcome: 'running' });
    expect(sshd.remoteSessions()).toEqual(['x@mix']);
  });

  it('a stand-in started by hand on the host on the same thread refuses send, and once it holds the writer lock, launch, with CONVERSATION_LIVE_ELSEWHERE', async () => {
    const { id, bin, home } = await upCodex();
    sshd.startAsRemote([bin, 'resume', id], { CODEX_HOME: home });
    const handOnX = async (source?: string) =>
      (await w.cli(['ps', '--all', '--json'])).json.others.some(
        (o: { conversationId?: string; host?: string; source?: string }) =>
          o.conversationId === id && o.host === 'box' && (source === undefined || o.source === source),
      );
    await waitFor(() => handOnX(), { what: "the hand-started stand-in in the host's roster" });

    // The seat still writes X (it holds the lock); the hand-started one waits for it, its argv naming X.
    const s = await w.cli(['send', 'x@mix', 'hello', '--json']);
    expect(s.code, s.stdout + s.stderr).toBe(1);
    expect(s.json).toMatchObject({ ok: false, code: 'CONVERSATION_LIVE_ELSEWHERE', evidence: { host: 'box' } });
    const hand = s.json.evidence.owners[0];
    expect(hand).toMatchObject({ source: 'argv', headless: true });
    expect(cmdline(hand.pid)).toEqual(expect.arrayContaining(['resume', id]));

    // The seat ends: the hand-started stand-in takes X's writer lock, and the host's /proc/locks says so.
    const stop = await w.cli(['stop', 'x@mix', '--json']);
    expect(stop.code, stop.stdout + stop.stderr).toBe(0);
    await waitFor(() => handOnX('writer_lock'), { what: "X's writer lock held by the hand-started stand-in" });

    const l = await w.cli(['launch', 'x@mix', '--json']);
    expect(l.code, l.stdout + l.stderr).toBe(1);
    expect(l.json).toMatchObject({ ok: false, code: 'CONVERSATION_LIVE_ELSEWHERE', evidence: { host: 'box' } });
    expect(l.json.evidence.owners[0]).toMatchObject({ source: 'writer_lock', headless: true, home, pid: hand.pid });
    expect(sshd.remoteSessions()).toEqual([]);
  });

  it("fork makes a new seat on the same host on a new thread (proved by the host's argv and writer lock); X's rollout is byte-for-byte unchanged", async () => {
    const { id: X, rollout, home } = await upCodex();
    const source = bySeat((await w.cli(['ps', '--json'])).json.seats)['x@mix'];
    const before = sshd.readHost(rollout);
    const plan = await w.cli(['fork', 'x@mix', '--as', 'y', '--plan', '--json']);
    expect(plan.code, plan.stdout + plan.stderr).toBe(0);
    // X's rollout was found on the host through its dated folders (the adapter's own rule), not here.
    expect(plan.json.plan).toMatchObject({
      source: 'x@mix',
      seat: 'y@mix',
      runtime: 'codex',
      from: X,
      transcript: rollout,
      sourceRunning: true,
      fromEvidence: { source: 'roster:writer_lock' },
    });

    const f = await w.cli(['fork', 'x@mix', '--as', 'y', '--json']);
    expect(f.code, f.stdout + f.stderr).toBe(0);
    expect(f.json.result).toMatchObject({ seat: 'y@mix', outcome: 'forked', from: X });
    expect(sshd.remoteSessions().sort()).toEqual(['x@mix', 'y@mix']);
    expect(w.sessions()).toEqual([]);

    // Codex names the fork's thread only after it starts: the host's roster reads it from the new lock.
    let y: any; // eslint-disable-line @typescript-eslint/no-explicit-any
    await waitFor(
      async () => {
        y = bySeat((await w.cli(['ps', '--json'])).json.seats)['y@mix'];
        return y?.state === 'running' && typeof y.conversationId === 'string' && y.conversationId !== X;
      },
      { what: "the fork's new thread named by the host's roster" },
    );
    const NEW = y.conversationId as string;
    expect(f.json.result).toMatchObject({ conversationId: NEW, evidence: { source: 'writer_lock' } });
    expect(NEW).toMatch(/^[0-9a-f-]{36}$/);
    expect(y).toMatchObject({ host: 'box', server: `H:box|L:${sshd.tmuxSocket}` });
    expect(cmdline(y.pid)).toEqual(expect.arrayContaining(['fork', X]));
    const ps = bySeat((await w.cli(['ps', '--json'])).json.seats);
    expect(ps['x@mix']).toMatchObject({ host: 'box', state: 'running', conversationId: X, pid: source.pid });

    const forked = remoteRollout(sshd, home, NEW);
    expect(forked).toBeDefined();
    await waitFor(() => sshd.readHost(forked!).includes('standin-forked'), {
      what: 'the fork writing its own rollout',
    });
    expect(sshd.readHost(forked!).startsWith(before)).toBe(true);
    expect(sshd.readHost(rollout)).toBe(before);

    const e = w.engine();
    try {
      expect(e.store.rigs.seat('y@mix')).toMatchObject({
        rig: 'mix',
        pod: 'team',
        member: 'y',
        host: 'box',
        runtime: 'codex',
        conversationId: NEW,
        env: { CODEX_HOME: home },
      });
    } finally {
      e.store.close();
    }
  });

  it('restart --keep-conversation resumes X in the same remote pane once the old writer let go of its lock; fresh starts a new thread there', async () => {
    const { id, rollout } = await upCodex();
    const before = bySeat((await w.cli(['ps', '--json'])).json.seats)['x@mix'];
    const r = await w.cli(['restart', 'x@mix', '--keep-conversation', '--json']);
    expect(r.code, r.stdout + r.stderr).toBe(0);
    expect(r.json.result).toMatchObject({
      outcome: 'resumed',
      conversationId: id,
      paneId: before.paneId,
      sessionId: before.sessionId,
    });
    const after = bySeat((await w.cli(['ps', '--json'])).json.seats)['x@mix'];
    expect(after).toMatchObject({ host: 'box', state: 'running', conversationId: id });
    expect(after.pid).not.toBe(before.pid);
    expect(cmdline(after.pid)).toEqual(expect.arrayContaining(['resume', id]));
    await waitFor(() => sshd.readHost(rollout).includes('standin-resumed'), {
      what: "the resumed stand-in taking X's lock and writing its rollout",
    });

    const f = await w.cli(['fresh', 'x@mix', '--reason=start over', '--json']);
    expect(f.code, f.stdout + f.stderr).toBe(0);
    expect(f.json.result.outcome).toBe('fresh');
    let now: any; // eslint-disable-line @typescript-eslint/no-explicit-any
    await waitFor(
      async () => {
        now = bySeat((await w.cli(['ps', '--json'])).json.seats)['x@mix'];
        return now?.state === 'running' && typeof now.conversationId === 'string' && now.conversationId !== id;
      },
      { what: 'the fresh thread named by its writer lock' },
    );
    expect(remoteRollout(sshd, installRemoteCodexStandIn(sshd).home, now.conversationId)).toBeDefined();
    expect(sshd.remoteSessions()).toEqual(['x@mix']);
  });

  it('a rollout missing on the host leaves the seat awaiting a decision after a reboot, with no pane created there', async () => {
    const { id, rollout } = await upCodex();
    rebootRemoteTmux(sshd);
    sshd.asRemote(['rm', rollout]);
    const r = await w.cli(['restore', 'mix', '--json']);
    expect(r.code, r.stdout + r.stderr).toBe(0);
    expect(r.json.seats[0], r.stdout).toMatchObject({
      outcome: 'awaiting_decision',
      plan: 'awaiting_decision',
      conversationId: id,
    });
    expect(sshd.remoteSessions()).toEqual([]);
    const ds = (await w.cli(['decisions', '--json'])).json.decisions as { seat: string; reason: string }[];
    expect(ds.map((d) => [d.seat, d.reason])).toEqual([['x@mix', 'transcript_missing']]);
  });

  it("a resume Codex reports missing on the host's screen is rolled back there and awaits a decision", async () => {
    const { id, home } = await upCodex();
    rebootRemoteTmux(sshd);
    sshd.asRemote(['touch', `${home}/missing-${id}`]);
    const r = await w.cli(['restore', 'mix', '--json']);
    const x = r.json.seats[0];
    expect(x, r.stdout).toMatchObject({
      seat: 'x@mix',
      outcome: 'awaiting_decision',
      plan: 'resume',
      conversationId: id,
    });
    expect(x.evidence.screen).toContain(`No saved session found with ID ${id}.`);
    expect(sshd.remoteSessions()).toEqual([]);
  });
});
