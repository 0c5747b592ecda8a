/**
 * Journey: the real OpenCode, Gemini CLI and Qwen Code on another host (test-host.ts), driven
 * through `rigdesk` over ssh against the fake model server here (reached through an ssh reverse
 * forward). Each launches, replies in its own conversation, refuses a person's second writer on it
 * and comes back on it after the host's tmux server is killed. What each needs before launch is
 * done on the host: Gemini's session cleanup off and Qwen's proxy in the seat's own settings there,
 * OpenCode's TMPDIR in Rigdesk's folder there; OpenCode's session database is read on the host.
 * One host, one world and one rig for the file; the steps run in order.
 */
import { existsSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { OPENCODE_LAYOUT } from '../../src/main/engine/runtimes/opencode-sessions';
import type { PsRow } from '../../src/shared/contract';
import { requireCli } from '../journeys/support';
import { endHostJourney, killHostTmux, psRows, seenOnHost } from '../support/host-journey';
import { HostAgents, type HostRuntime } from '../support/remote-agents';
import { RigWorld } from '../support/rig';
import { sshdMissing, TestSshd } from '../support/sshd';
import { waitFor } from '../support/tmux';

const SEATS: { seat: string; member: string; runtime: HostRuntime; resume: (id: string) => string[] }[] = [
  { seat: 'oc@far', member: 'oc', runtime: 'opencode', resume: (id) => ['opencode', '-s', id] },
  { seat: 'gem@far', member: 'gem', runtime: 'gemini', resume: (id) => ['gemini', '--resume', id] },
  { seat: 'qw@far', member: 'qw', runtime: 'qwen', resume: (id) => ['qwen', '--resume', id] },
];

describe.skipIf(!!sshdMissing())(
  'journey: the real OpenCode, Gemini CLI and Qwen Code on another host, over ssh',
  () => {
    const installed = requireCli('opencode', 'gemini', 'qwen');
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
      await agents.qwenProxy();
      w = new RigWorld();
    }, 120_000);
    afterAll(() => endHostJourney({ w, agents, sshd }, installed()), 120_000);

    const rows = () => psRows(w);
    /** Polls ps until every seat matches `want`; the screens on the host say why when it does not. */
    const seen = (seats: string[], want: (r: PsRow) => boolean, what: string, timeoutMs = 90_000) =>
      seenOnHost(w, agents, seats, want, what, timeoutMs);
    const all = SEATS.map((s) => s.seat);
    /** Gemini appends `{"$set":{"sessionId":…}}` to a transcript once a resume of it has loaded. */
    const resumeMarks = (id: string) =>
      sshd
        .readHost(agents.transcript('gemini', id)!)
        .split('\n')
        .filter((l) => l.startsWith('{"$set":{"sessionId"')).length;
    /**
     * The person's pane shows their conversation, and a Gemini there has taken it up. Until then a
     * resuming Gemini holds a new empty record, and when the conversation began in the same minute
     * that record is the conversation's own file: ended then, Gemini deletes it as an empty session
     * (a run failed so, the seat's resume then finding "No previous sessions").
     */
    const personHasLoaded = (s: (typeof SEATS)[number], paneId: string, marksBefore: number) =>
      waitFor(
        () =>
          agents.personScreen(paneId).includes(`ACK hello ${s.member}`) &&
          (s.runtime !== 'gemini' || resumeMarks(conv[s.seat]!) > marksBefore),
        { timeoutMs: 60_000, what: `${s.seat}: the person's ${s.runtime} has taken up its conversation` },
      ).catch((e: Error) => {
        throw new Error(`${e.message}\n${agents.personScreen(paneId)}`);
      });

    it("up launches each seat on the host, with what its runtime needs made there; a send's reply lands in its conversation on the host", async () => {
      const spec = agents.spec(
        w,
        'far',
        SEATS.map((s) => agents.member(s.member, s.runtime)),
      );
      const up = await w.cli(['up', spec, '--json']);
      expect(up.code, up.stdout + up.stderr).toBe(0);
      expect(sshd.remoteSessions().sort()).toEqual([...all].sort());
      // Gemini and Qwen get their id up front; OpenCode's session is read from its database on the host.
      expect(up.json.seats[0].launched.conversationId).toBeUndefined();
      conv['gem@far'] = up.json.seats[1].launched.conversationId;
      conv['qw@far'] = up.json.seats[2].launched.conversationId;
      // The seats' own settings, written on the host by Rigdesk before launch.
      const gemSettings = JSON.parse(sshd.readHost(`${agents.homeOf('gemini')}/.gemini/settings.json`));
      expect(gemSettings.general.sessionRetention.enabled).toBe(false);
      const qwenSettings = JSON.parse(sshd.readHost(`${agents.homeOf('qwen')}/settings.json`));
      expect(qwenSettings.proxy).toBe(agents.env.qwen.RIGDESK_QWEN_PROXY);
      await seen(all, (r) => r.state === 'running' && r.activity === 'idle', 'every seat idle', 120_000);
      for (const s of SEATS) {
        const sent = await w.cli(['send', s.seat, `hello ${s.member}`, '--verify', '--json']);
        expect(sent.json, `${s.seat}: ${sent.stdout}${sent.stderr}\n${agents.screen(s.seat)}`).toMatchObject({
          ok: true,
        });
      }
      const named = await seen(
        all,
        (r) => typeof r.conversationId === 'string' && r.activity === 'idle',
        'every seat idle on a named conversation',
      );
      for (const r of named) {
        expect(r.host).toBe('box');
        if (conv[r.seat]) expect(r.conversationId).toBe(conv[r.seat]);
        conv[r.seat] = r.conversationId!;
      }
      expect(conv['oc@far']).toMatch(OPENCODE_LAYOUT.sessionId);
      for (const s of SEATS.filter((x) => x.runtime !== 'opencode'))
        await agents.replyIn(s.runtime, conv[s.seat]!, `ACK hello ${s.member}`);
      // OpenCode's one database holds the session: it is there, on the host, not here.
      expect(agents.transcript('opencode', conv['oc@far']!)).toBe(OPENCODE_LAYOUT.dbFile(agents.homeOf('opencode')));
      expect(existsSync(OPENCODE_LAYOUT.dbFile(agents.homeOf('opencode')))).toBe(!sshd.isolated);
      await waitFor(() => /ACK hello oc/.test(agents.screen('oc@far')), { what: "OpenCode's reply on its screen" });
    }, 300_000);

    it('a person resuming a conversation by hand on the host is a second writer: Rigdesk refuses to send into it or launch on it', async () => {
      for (const s of SEATS) {
        const X = conv[s.seat]!;
        const marks = s.runtime === 'gemini' ? resumeMarks(X) : 0;
        const hand = agents.personPane(s.runtime, `mine-${s.member}`, s.resume(X));
        const blocked = await waitFor(
          async () => {
            const r = await w.cli(['send', s.seat, 'typed while a person writes', '--json']);
            return r.json?.code === 'CONVERSATION_LIVE_ELSEWHERE' ? r : undefined;
          },
          { timeoutMs: 60_000, intervalMs: 1000, what: `${s.seat}: a send refused for the person's ${s.runtime}` },
        ).catch((e: Error) => {
          throw new Error(`${e.message}\n${agents.personScreen(hand.paneId)}`);
        });
        await personHasLoaded(s, hand.paneId, marks);
        expect(blocked.json.evidence).toMatchObject({ host: 'box' });
        expect(blocked.json.evidence.owners.map((o: { paneId?: string }) => o.paneId)).toContain(hand.paneId);
        expect((await w.cli(['stop', s.seat, '--json'])).code).toBe(0);
        const relaunch = await w.cli(['launch', s.seat, '--json']);
        expect(relaunch.json, relaunch.stdout).toMatchObject({ ok: false, code: 'CONVERSATION_LIVE_ELSEWHERE' });
        expect(sshd.remoteSessions()).not.toContain(s.seat);
      }
      agents.endPerson();
      for (const s of SEATS) {
        const back = await waitFor(
          async () => {
            const l = await w.cli(['launch', s.seat, '--json']);
            return l.code === 0 ? l : undefined;
          },
          { timeoutMs: 30_000, intervalMs: 1000, what: `${s.seat} launched again once the person is gone` },
        );
        expect(back.json.launched).toMatchObject({ mode: 'resume', conversationId: conv[s.seat] });
      }
      await seen(
        all,
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
      const back = await seen(
        all,
        (x) => x.state === 'running' && x.activity === 'idle' && x.conversationId === conv[x.seat],
        'every seat idle on its conversation after restore',
      );
      for (const row of back) {
        const argv = sshd.asRemote(['cat', `/proc/${row.pid}/cmdline`]).split('\0');
        expect(argv.join(' '), row.seat).toContain(conv[row.seat]!);
      }
      for (const s of SEATS) {
        const sent = await w.cli(['send', s.seat, `after restore ${s.member}`, '--verify', '--json']);
        expect(sent.json, `${s.seat}: ${sent.stdout}\n${agents.screen(s.seat)}`).toMatchObject({ ok: true });
      }
      for (const s of SEATS.filter((x) => x.runtime !== 'opencode'))
        await agents.replyIn(s.runtime, conv[s.seat]!, `ACK after restore ${s.member}`);
      await waitFor(() => /ACK after restore oc/.test(agents.screen('oc@far')), {
        what: "OpenCode's reply after restore",
      });
    }, 300_000);

    it('restart --keep-conversation brings each back on its conversation in its pane on the host; fresh starts another there', async () => {
      const before = await rows();
      for (const s of SEATS) {
        const b = before.find((r) => r.seat === s.seat)!;
        const r = await w.cli(['restart', s.seat, '--keep-conversation', '--json']);
        expect(r.code, `${s.seat}: ${r.stdout}${r.stderr}\n${agents.screen(s.seat)}`).toBe(0);
        expect(r.json.result).toMatchObject({ outcome: 'resumed', conversationId: conv[s.seat], paneId: b.paneId });
      }
      await seen(
        all,
        (r) => r.state === 'running' && r.activity === 'idle' && r.conversationId === conv[r.seat],
        'every seat idle on its conversation after restart',
      );
      for (const s of SEATS) {
        const f = await w.cli(['fresh', s.seat, '--reason=start over', '--json']);
        expect(f.code, `${s.seat}: ${f.stdout}${f.stderr}`).toBe(0);
        expect(f.json.result.outcome).toBe('fresh');
        // Gemini and Qwen are given a new id; OpenCode's is named once it writes one.
        if (s.runtime !== 'opencode') expect(f.json.result.conversationId).not.toBe(conv[s.seat]);
      }
      expect(sshd.remoteSessions().sort()).toEqual([...all].sort());
      await seen(all, (r) => r.state === 'running' && r.activity === 'idle', 'every seat idle after fresh');
    }, 300_000);

    it("nothing of the host's seats was made on this machine at the host's paths", () => {
      if (sshd.isolated) expect(existsSync(sshd.remoteDir)).toBe(false);
    });
  },
);
