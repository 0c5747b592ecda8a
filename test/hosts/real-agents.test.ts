/**
 * Journey: the real Claude Code, Codex and Pi on another host (test-host.ts: a user of its own in a
 * mount and PID namespace of its own where allowed), driven through `rigdesk` over ssh, against the
 * fake model server here, which the host reaches through an ssh reverse forward. Launch, send and
 * reply (found in the conversation's transcript on the host), a permission prompt read as
 * needs_input and approved from Rigdesk, a person resuming the conversation by hand on the host
 * refused as a second writer, and restore after the host's tmux server is killed. One host, one
 * world and one rig for the file; the steps run in order.
 */
import { existsSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CLAUDE_SCREEN } from '../../src/main/engine/runtimes/screens/claude';
import type { PsRow } from '../../src/shared/contract';
import { requireCli } from '../journeys/support';
import { endHostJourney, killHostTmux, psRows, seenOnHost } from '../support/host-journey';
import { HostAgents, type HostRuntime } from '../support/remote-agents';
import { RigWorld } from '../support/rig';
import { sshdMissing, TestSshd } from '../support/sshd';
import { waitFor } from '../support/tmux';

const SEATS: { seat: string; member: string; runtime: HostRuntime }[] = [
  { seat: 'lead@far', member: 'lead', runtime: 'claude-code' },
  { seat: 'coder@far', member: 'coder', runtime: 'codex' },
  { seat: 'pi@far', member: 'pi', runtime: 'pi' },
];
/** Pi's editor: the empty line between two full-width rules (its idle screen). */
const PI_EDITOR = /^─{8,}\n\s*\n─{8,}$/m;

describe.skipIf(!!sshdMissing())('journey: the real Claude Code, Codex and Pi on another host, over ssh', () => {
  const installed = requireCli('claude-code', 'codex', 'pi');
  let sshd: TestSshd;
  let agents: HostAgents;
  let w: RigWorld;
  const conv: Record<string, string> = {};

  beforeAll(async () => {
    sshd = await new TestSshd().start();
    agents = await HostAgents.start(
      sshd,
      SEATS.map((s) => s.runtime),
    );
    w = new RigWorld();
  }, 120_000);
  afterAll(() => endHostJourney({ w, agents, sshd }, installed()), 120_000);

  const rows = () => psRows(w);
  /** Polls ps until every seat matches `want`; the screens on the host say why when it does not. */
  const seen = (seats: string[], want: (r: PsRow) => boolean, what: string, timeoutMs = 60_000) =>
    seenOnHost(w, agents, seats, want, what, timeoutMs);

  it('up launches each seat on the host; ps shows each running there, idle, on a conversation it names', async () => {
    const spec = agents.spec(
      w,
      'far',
      SEATS.map((s) => agents.member(s.member, s.runtime)),
    );
    const up = await w.cli(['up', spec, '--json']);
    expect(up.code, up.stdout + up.stderr).toBe(0);
    expect(sshd.remoteSessions().sort()).toEqual(SEATS.map((s) => s.seat).sort());
    expect(w.sessions()).toEqual([]);
    const ready = await seen(
      SEATS.map((s) => s.seat),
      (r) => r.state === 'running' && r.activity === 'idle' && typeof r.conversationId === 'string',
      'every seat idle on a named conversation',
    );
    for (const r of ready) {
      expect(r.host).toBe('box');
      conv[r.seat] = r.conversationId!;
    }
    // Claude and Pi: the id Rigdesk chose at launch; Codex: the thread its writer lock on the host names.
    expect(conv['lead@far']).toBe(up.json.seats[0].launched.conversationId);
    expect(conv['pi@far']).toBe(up.json.seats[2].launched.conversationId);
    expect(up.json.seats[1].launched.conversationId).toBeUndefined();
  }, 180_000);

  it("send to each: delivered, and the reply lands in that conversation's transcript on the host", async () => {
    for (const s of SEATS) {
      const sent = await w.cli(['send', s.seat, `hello ${s.member}`, '--verify', '--json']);
      expect(sent.json, `${s.seat}: ${sent.stdout}${sent.stderr}\n${agents.screen(s.seat)}`).toMatchObject({
        ok: true,
        sent: { status: 'delivered', verified: true },
      });
    }
    for (const s of SEATS) await agents.replyIn(s.runtime, conv[s.seat]!, `ACK hello ${s.member}`);
    await seen(
      SEATS.map((s) => s.seat),
      (r) => r.activity === 'idle',
      'every seat idle after its reply',
    );
  }, 180_000);

  it('a permission prompt reads needs_input:permission; a send is held; approved from Rigdesk, the command runs on the host', async () => {
    const ask = [
      { seat: 'lead@far', file: 'from-claude.txt' },
      { seat: 'coder@far', file: 'from-codex.txt' },
    ];
    for (const a of ask)
      expect((await w.cli(['send', a.seat, `RUN: echo ok > ${a.file}`, '--json'])).json.ok).toBe(true);
    await seen(
      ask.map((a) => a.seat),
      (r) => r.activity === 'needs_input' && r.needsInput === 'permission',
      'both waiting for permission',
    );
    const listed = await w.cli(['prompts', '--json']);
    for (const a of ask) {
      const held = await w.cli(['send', a.seat, 'y', '--json']);
      expect(held.json).toMatchObject({ ok: false, code: 'SEND_HELD', evidence: { why: 'needs_input:permission' } });
      expect(sshd.existsHost(`${agents.work}/${a.file}`)).toBe(false);
      const item = listed.json.prompts.find((p: { seat: string }) => p.seat === a.seat);
      expect(item, listed.stdout).toMatchObject({
        reason: 'permission',
        choices: expect.arrayContaining(['approve', 'deny', 'deny_with_message']),
      });
      expect(item.screen.join('\n')).toContain(`echo ok > ${a.file}`);
      const answered = await w.cli([
        'answer',
        a.seat,
        'approve',
        `--prompt=${item.fingerprint}`,
        '--reason',
        'journey: approve the echo on the host',
        '--json',
      ]);
      expect(answered.json, answered.stdout + answered.stderr).toMatchObject({ ok: true });
    }
    // The shell makes each file before echo writes into it: wait for what they hold.
    const echoed = (f: string) =>
      sshd.existsHost(`${agents.work}/${f}`) && sshd.readHost(`${agents.work}/${f}`).trim() === 'ok';
    await waitFor(() => ask.every((a) => echoed(a.file)), { timeoutMs: 30_000, what: 'both commands ran on the host' });
    await seen(
      ask.map((a) => a.seat),
      (r) => r.activity === 'idle',
      'both idle again',
    );
  }, 180_000);

  it('a person resuming the conversation by hand on the host is a second writer: Rigdesk refuses to send or launch on it', async () => {
    // Claude: a second interactive claude on X in the person's own tmux on the host.
    const X = conv['lead@far']!;
    const lead = (await rows()).find((r) => r.seat === 'lead@far')!;
    const hand = agents.personPane('claude-code', 'mine-claude', ['claude', '--resume', X]);
    await waitFor(() => CLAUDE_SCREEN.idle.test(agents.personScreen(hand.paneId)), {
      timeoutMs: 60_000,
      what: "the person's claude on X idle",
    }).catch((e: Error) => {
      throw new Error(`${e.message}\n${agents.personScreen(hand.paneId)}`);
    });
    const blocked = await w.cli(['send', 'lead@far', 'typed while a person writes X', '--json']);
    expect(blocked.json, blocked.stdout).toMatchObject({ ok: false, code: 'CONVERSATION_LIVE_ELSEWHERE' });
    expect(blocked.json.evidence).toMatchObject({ host: 'box' });
    expect(blocked.json.evidence.owners.map((o: { paneId?: string }) => o.paneId)).toContain(hand.paneId);
    expect((await w.cli(['stop', 'lead@far', '--json'])).code).toBe(0);
    const relaunch = await w.cli(['launch', 'lead@far', '--json']);
    expect(relaunch.json, relaunch.stdout).toMatchObject({ ok: false, code: 'CONVERSATION_LIVE_ELSEWHERE' });
    expect(sshd.remoteSessions()).not.toContain('lead@far');
    expect(lead.pid).toBeDefined();

    // Codex: the seat stops, the person resumes the thread by hand (it takes the writer lock there).
    const T = conv['coder@far']!;
    expect((await w.cli(['stop', 'coder@far', '--json'])).code).toBe(0);
    const handCodex = agents.personPane('codex', 'mine-codex', ['codex', 'resume', T]);
    await waitFor(
      async () =>
        (await w.cli(['ps', '--all', '--json'])).json.others.some(
          (o: { conversationId?: string; host?: string; source?: string }) =>
            o.conversationId === T && o.host === 'box' && o.source === 'writer_lock',
        ),
      { timeoutMs: 60_000, what: "the person's codex holding T's writer lock on the host" },
    );
    const codexRelaunch = await w.cli(['launch', 'coder@far', '--json']);
    expect(codexRelaunch.json, codexRelaunch.stdout).toMatchObject({
      ok: false,
      code: 'CONVERSATION_LIVE_ELSEWHERE',
      evidence: { host: 'box' },
    });
    expect(codexRelaunch.json.evidence.owners[0]).toMatchObject({ source: 'writer_lock', paneId: handCodex.paneId });

    // Pi renames itself, so nothing names what another Pi in the seat's folder writes: doubt refuses.
    const P = conv['pi@far']!;
    const handPi = agents.personPane('pi', 'mine-pi', ['pi', '--session', P]);
    await waitFor(() => PI_EDITOR.test(agents.personScreen(handPi.paneId)), {
      timeoutMs: 60_000,
      what: "the person's pi at its editor",
    }).catch((e: Error) => {
      throw new Error(`${e.message}\n${agents.personScreen(handPi.paneId)}`);
    });
    const piSend = await w.cli(['send', 'pi@far', 'typed while a person has Pi open', '--json']);
    expect(piSend.json, piSend.stdout).toMatchObject({ ok: false, code: 'CONVERSATION_OWNER_UNKNOWN' });

    // The person is done: each seat comes back on its own conversation.
    agents.endPerson();
    for (const s of ['lead@far', 'coder@far']) {
      const back = await waitFor(
        async () => {
          const l = await w.cli(['launch', s, '--json']);
          return l.code === 0 ? l : undefined;
        },
        { timeoutMs: 30_000, intervalMs: 1000, what: `${s} launched again once the person is gone` },
      );
      expect(back.json.launched).toMatchObject({ mode: 'resume', conversationId: conv[s] });
    }
    await seen(
      SEATS.map((s) => s.seat),
      (r) => r.state === 'running' && r.activity === 'idle' && r.conversationId === conv[r.seat],
      'every seat idle on its own conversation again',
    );
  }, 300_000);

  it("restore after the host's tmux server is killed resumes each conversation there, and each replies in it", async () => {
    await killHostTmux(w, sshd);
    expect(sshd.remoteSessions()).toEqual([]);
    const r = await w.cli(['restore', 'far', '--json']);
    expect(r.code, r.stdout + r.stderr).toBe(0);
    for (const s of SEATS)
      expect(
        r.json.seats.find((x: { seat: string }) => x.seat === s.seat),
        r.stdout,
      ).toMatchObject({ outcome: 'resumed', conversationId: conv[s.seat] });
    expect(sshd.remoteSessions().sort()).toEqual(SEATS.map((s) => s.seat).sort());
    const back = await seen(
      SEATS.map((s) => s.seat),
      (x) => x.state === 'running' && x.activity === 'idle' && x.conversationId === conv[x.seat],
      'every seat idle on its conversation after restore',
    );
    // The host's own process table names each conversation in its resumed agent's argv (Pi rewrites
    // its command line: its resume shows in the reply landing in the same session file).
    for (const row of back.filter((x) => x.seat !== 'pi@far')) {
      const argv = sshd.asRemote(['cat', `/proc/${row.pid}/cmdline`]).split('\0');
      expect(argv.join(' '), row.seat).toContain(conv[row.seat]!);
    }
    for (const s of SEATS) {
      const sent = await w.cli(['send', s.seat, `after restore ${s.member}`, '--verify', '--json']);
      expect(sent.json, `${s.seat}: ${sent.stdout}\n${agents.screen(s.seat)}`).toMatchObject({ ok: true });
    }
    for (const s of SEATS) await agents.replyIn(s.runtime, conv[s.seat]!, `ACK after restore ${s.member}`);
  }, 180_000);

  it("nothing of the host's seats was made on this machine at the host's paths", () => {
    // (Pi's fresh session header is made by Rigdesk before Pi starts: on the host, not here.)
    if (sshd.isolated) expect(existsSync(sshd.remoteDir)).toBe(false);
    expect(sshd.existsHost(agents.work)).toBe(true);
  });
});
