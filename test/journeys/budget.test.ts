/**
 * Acceptance: a budget reached parks, never kills. Two real Claude Code seats of one pod run
 * offline against the fake model server, whose replies report exactly the tokens each prompt names
 * (`USAGE:`), so the pod's spending today comes from real usage records, read as ps reads them.
 * The pod declares `budget: {tokens: 100000}`. While `lead` is in a turn the server holds, `helper`'s
 * reply takes the pod past it: then a queued wake and a send are parked behind a budget decision
 * (shown, nothing typed), a send with --wait-for-idle waits at it, and lead's running turn goes on
 * to its end untouched (same agent pid). Releasing the decision lets the waiting send, a plain send
 * and the wake run.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { liveEvidenceIO } from '../../src/main/engine/evidence-io';
import { claudeCode } from '../../src/main/engine/runtimes';
import type { PsRow } from '../../src/shared/contract';
import type { FakeModelServer } from '../agents/fake-model-server';
import { waitFor } from '../support/tmux';
import { expectOnlyLoopback, JourneyWorld, requireCli, startServer, waitForReplyInTranscript } from './support';

const LIMIT = 100_000;
const LEAD_TURN = 'work HOLD USAGE:1000:10:0:0';
const HELPER_TURN = 'tally USAGE:99000:1500:0:0';

describe('acceptance: a reached budget parks a queued wake and a send, and releasing it lets them run', () => {
  const installed = requireCli('claude-code');
  let server: FakeModelServer;
  let j: JourneyWorld;

  beforeAll(async () => {
    const s = await startServer({ slowChunks: 3, slowMs: 300 });
    server = s.server;
    j = new JourneyWorld(server, s.closed, ['claude-code']);
  });
  afterAll(async () => {
    server?.release();
    await j?.cleanup();
    await server?.close();
    if (server && installed()) expectOnlyLoopback(server);
  }, 60_000);

  it('parks at the budget, leaves the running turn alone, and runs everything once released', async () => {
    const specPath = j.spec('b', [
      { id: 'lead', runtime: 'claude-code' },
      { id: 'helper', runtime: 'claude-code' },
    ]);
    const text = readFileSync(specPath, 'utf8');
    writeFileSync(specPath, text.replace('  - id: team\n', `  - id: team\n    budget: {tokens: ${LIMIT}}\n`));
    const up = await j.cli(['up', specPath, '--json']);
    expect(up.code, up.stdout + up.stderr).toBe(0);
    const conv: Record<string, string> = {};
    for (const s of ['lead@b', 'helper@b'])
      conv[s] = (await j.seen(s, { activity: 'idle', named: true })).row.conversationId!;
    const home = j.homeOf('claude-code');
    const transcript = (seat: string) =>
      readFileSync(claudeCode.transcriptPath!(home, j.dir(), conv[seat]!, liveEvidenceIO)!, 'utf8');

    const under = await j.row('lead@b');
    expect(under.budget).toMatchObject({ scope: 'pod', name: 'team@b', state: 'under', tokens: { limit: LIMIT } });

    // lead's turn runs and is held by the server: it is running when the budget is reached.
    server.hold();
    expect((await j.cli(['send', 'lead@b', LEAD_TURN, '--verify', '--json'])).json).toMatchObject({ ok: true });
    const working = (await j.seen('lead@b', { activity: 'working' })).row;
    const added = await j.cli(['queue', 'add', 'lead@b', 'look at the budget', '--json']);
    expect(added.json, added.stdout + added.stderr).toMatchObject({ ok: true, writer: 'live' });

    expect((await j.cli(['send', 'helper@b', HELPER_TURN, '--verify', '--json'])).json).toMatchObject({ ok: true });
    await waitForReplyInTranscript(claudeCode, home, j.dir(), conv['helper@b']!, `ACK ${HELPER_TURN}`);
    await j.seen('helper@b', { activity: 'idle' });

    // The pod spent 1010 (lead's first call, as far as recorded) + 100500 (helper's) >= 100000.
    const over = await waitFor(
      async () => {
        const rows = await j.rows();
        const by = (s: string) => rows.find((r) => r.seat === s)!;
        return by('lead@b').budget?.state === 'over' && by('helper@b').budget?.state === 'over'
          ? { lead: by('lead@b'), helper: by('helper@b') }
          : undefined;
      },
      { timeoutMs: 30_000, intervalMs: 250, what: "the pod's budget over in ps" },
    );
    expect(over.helper.budget!.tokens!.spent).toBeGreaterThanOrEqual(100_500);
    // Nothing running was stopped: lead is still in its turn, the same agent process.
    expect(over.lead).toMatchObject({ activity: 'working', pid: working.pid });

    // The queued wake parks behind a decision, typed nowhere.
    const wake = await j.cli(['queue', 'wake', '--seat', 'lead@b', '--json']);
    expect(wake.json, wake.stdout + wake.stderr).toMatchObject({
      ok: true,
      wakes: [{ seat: 'lead@b', outcome: 'parked', why: 'budget', decision: expect.any(Number) }],
    });
    const decisionId: number = wake.json.wakes[0].decision;
    const listed = await j.cli(['decisions', '--json']);
    const decision = listed.json.decisions.find((d: { id: number }) => d.id === decisionId);
    expect(decision, listed.stdout).toMatchObject({
      kind: 'budget',
      seat: 'lead@b',
      reason: 'budget_reached',
      state: 'open',
      choices: ['release'],
      evidence: { budget: 'pod:team@b', scope: 'pod', name: 'team@b' },
    });
    expect(decision.evidence.why).toContain('raise it, or release for today');
    expect((await j.row('lead@b')).budget).toMatchObject({ state: 'over', decisionId });

    // A plain send is held, naming its decision; nothing reaches the seat.
    const held = await j.cli(['send', 'helper@b', 'after the budget', '--json']);
    expect(held.json, held.stdout + held.stderr).toMatchObject({
      ok: false,
      code: 'SEND_HELD',
      evidence: { why: 'budget', decision: expect.any(Number) },
    });
    expect(held.json.hint).toContain('release');

    // A queued send (one that waits) waits at the budget.
    let queuedDone = false;
    const queued = j
      .cli(['send', 'lead@b', 'queued after the budget', '--wait-for-idle', '120', '--json'])
      .finally(() => {
        queuedDone = true;
      });

    // lead's running turn ends on its own, untouched.
    server.release();
    await waitForReplyInTranscript(claudeCode, home, j.dir(), conv['lead@b']!, `ACK ${LEAD_TURN} tick2 tick3`);
    const after = (await j.seen('lead@b', { activity: 'idle' })).row;
    expect(after.pid).toBe(working.pid);
    await new Promise((r) => setTimeout(r, 3000));
    expect(queuedDone, 'the queued send waited at the budget').toBe(false);
    for (const seat of ['lead@b', 'helper@b']) {
      expect(transcript(seat)).not.toContain('after the budget');
      expect(j.screen(seat)).not.toContain('after the budget');
    }
    expect(j.screen('lead@b')).not.toContain('queued item(s) for you');

    // Released for today: the waiting send goes, a plain send goes, and the wake is typed.
    const released = await j.cli([
      'decide',
      String(decisionId),
      'release',
      '--reason',
      'journey: let it run',
      '--json',
    ]);
    expect(released.json, released.stdout + released.stderr).toMatchObject({
      ok: true,
      decision: { id: decisionId, state: 'answered', answer: 'release' },
      result: { outcome: 'released', scope: 'pod', name: 'team@b' },
    });
    const q = await queued;
    expect(q.json, q.stdout + q.stderr).toMatchObject({ ok: true });
    await waitForReplyInTranscript(claudeCode, home, j.dir(), conv['lead@b']!, 'ACK queued after the budget');
    await j.seen('lead@b', { activity: 'idle' });
    const rows = await j.rows();
    for (const r of rows.filter((x: PsRow) => x.seat.endsWith('@b')))
      expect(r.budget, r.seat).toMatchObject({ state: 'released', decisionId });
    // The helper's own decision about the same budget was answered with it.
    expect((await j.cli(['decisions', '--json'])).json.decisions).toEqual([]);
    expect((await j.cli(['send', 'helper@b', 'after the release', '--verify', '--json'])).json).toMatchObject({
      ok: true,
    });
    await waitForReplyInTranscript(claudeCode, home, j.dir(), conv['helper@b']!, 'ACK after the release');
    const woken = await j.cli(['queue', 'wake', '--seat', 'lead@b', '--json']);
    expect(woken.json, woken.stdout).toMatchObject({ ok: true, wakes: [{ seat: 'lead@b', outcome: 'woken' }] });
    await j.screenShows('lead@b', new RegExp(woken.json.wakes[0].token), 'the wake notice');
    const kinds = (await j.cli(['events', '--seat', 'lead@b', '--json'])).json.events.map(
      (e: { kind: string }) => e.kind,
    );
    expect(kinds).toEqual(expect.arrayContaining(['budget.reached', 'budget.released', 'queue.wake']));
  }, 240_000);
});
