/**
 * Journey (issue 6): a second writer on a live Claude Code conversation. Claude itself accepts one
 * silently, headless (`claude -p --resume X`) and in a second interactive pane (`claude --resume X`),
 * and both write into X's transcript next to the seat. Rigdesk is the only guard: while another
 * writer of X lives, a send to the seat bound to X and a launch of that seat are refused with
 * CONVERSATION_LIVE_ELSEWHERE naming the other writer.
 */
import { spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { CLAUDE_BIN } from '../agents/claude-fixture';
import { agentProcessEnv, runAgent, startInTmux } from '../agents/agent-run';
import type { FakeModelServer } from '../agents/fake-model-server';
import { waitFor } from '../support/tmux';
import { claudeCode } from '../../src/main/engine/runtimes';
import { CLAUDE_SCREEN } from '../../src/main/engine/runtimes/screens/claude';
import {
  typeInto,
  expectOnlyLoopback,
  JourneyWorld,
  processAlive,
  requireCli,
  startServer,
  transcriptOf,
  waitForExit,
  waitForReplyInTranscript,
} from './support';

const SEAT = 'lead@dup';

describe('journey: a second writer on a live Claude Code conversation', () => {
  const installed = requireCli('claude-code');
  let server: FakeModelServer;
  let closed: number;
  let j: JourneyWorld | undefined;
  beforeAll(async () => {
    ({ server, closed } = await startServer({ slowChunks: 5, slowMs: 1000 }));
  });
  afterEach(async () => {
    await j?.cleanup();
  });
  afterAll(async () => {
    await server?.close();
    if (server && installed()) expectOnlyLoopback(server);
  });

  it('Claude takes a second writer (headless and a second pane); Rigdesk refuses to send to or launch the seat while one lives', async () => {
    const w = (j = new JourneyWorld(server, closed, ['claude-code']));
    const env = w.envOf('claude-code');
    const home = w.homeOf('claude-code');
    const work = w.dir();
    await w.up('dup', [{ id: 'lead', runtime: 'claude-code' }]);
    const { row } = await w.seen(SEAT, { activity: 'idle' });
    const X = row.conversationId!;
    expect((await w.cli(['send', SEAT, 'first turn', '--verify', '--json'])).json.ok).toBe(true);
    await waitForReplyInTranscript(claudeCode, home, work, X, 'ACK first turn');

    // 1. The CLI itself: a headless second writer on X while the seat runs is accepted, rc 0.
    const b = await runAgent(CLAUDE_BIN, env, work, ['-p', '--resume', X, 'second writer B']);
    expect(b.code, b.stderr).toBe(0);
    expect(b.stdout).toContain('ACK second writer B');
    await waitForReplyInTranscript(claudeCode, home, work, X, 'ACK second writer B');
    expect(await w.row(SEAT)).toMatchObject({ state: 'running', pid: row.pid, conversationId: X });

    // 2. While a headless writer of X runs, Rigdesk will not type into X.
    const headless = spawn(CLAUDE_BIN, ['-p', '--resume', X, 'headless SLOW'], {
      cwd: work,
      env: agentProcessEnv(env),
      stdio: 'ignore',
    });
    w.own(headless.pid!);
    await waitFor(
      () => processAlive(headless.pid!) && readFileSync(`/proc/${headless.pid}/cmdline`, 'utf8').includes(X),
      { what: 'headless claude running' },
    );
    const refused = await w.cli(['send', SEAT, 'typed while another writes', '--json']);
    expect(refused.code, refused.stdout).toBe(1);
    expect(refused.json.code).toBe('CONVERSATION_LIVE_ELSEWHERE');
    expect(refused.json.evidence.owners[0]).toMatchObject({
      pid: headless.pid,
      conversationId: X,
      headless: true,
      runtime: 'claude-code',
    });
    expect(await waitForExit(headless.pid!, 30_000)).toBe('exited');
    const text = readFileSync(transcriptOf(claudeCode, home, work, X)!, 'utf8');
    expect(text.includes('ACK headless SLOW tick2 tick3 tick4 tick5'), 'the headless reply is in X').toBe(true);
    expect(text.includes('typed while another writes'), 'the refused text never reached X').toBe(false);
    // Once it is gone, the seat is the only writer again and sends go through.
    const alone = await w.cli(['send', SEAT, 'alone again', '--verify', '--json']);
    expect(alone.json, alone.stdout).toMatchObject({ ok: true, sent: { status: 'delivered' } });
    await waitForReplyInTranscript(claudeCode, home, work, X, 'ACK alone again');

    // 3. A second interactive pane on X, on a person's own tmux server: Claude opens it without a word.
    const hand = w.otherTmux();
    const pane = startInTmux(hand, env, 'mine', work, [CLAUDE_BIN, '--resume', X]);
    await waitFor(() => CLAUDE_SCREEN.idle.test(hand.capture(pane.paneId)), {
      timeoutMs: 45_000,
      what: 'the second pane idle',
    });
    await typeInto(hand, pane.paneId, 'hand pane C', claudeCode);
    await waitForReplyInTranscript(claudeCode, home, work, X, 'ACK hand pane C');
    const blocked = await w.cli(['send', SEAT, 'typed while a second pane writes', '--json']);
    expect(blocked.json.code).toBe('CONVERSATION_LIVE_ELSEWHERE');
    expect(blocked.json.evidence.owners.map((o: { paneId?: string }) => o.paneId)).toContain(pane.paneId);
    // Rigdesk will not open another writer on X either: stopped, the seat does not come back on X.
    expect((await w.cli(['stop', SEAT, '--json'])).code).toBe(0);
    await waitForExit(row.pid!, 10_000);
    const relaunch = await w.cli(['launch', SEAT, '--json']);
    expect(relaunch.code).toBe(1);
    expect(relaunch.json.code).toBe('CONVERSATION_LIVE_ELSEWHERE');
    expect(relaunch.json.evidence.owners[0]).toMatchObject({ paneId: pane.paneId, conversationId: X, headless: false });
    expect(w.w.sessions().filter((s) => s.seat === SEAT)).toEqual([]);
  });
});
