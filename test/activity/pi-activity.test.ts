/**
 * Issue 4 acceptance with the real Pi coding agent (devDependency) in a Rigdesk seat:
 * `rigdesk ps --json` reports working during a slow reply (its `Working...` line), idle after it,
 * needs_input: usage_limit on a 429 (with provider retries off, Pi prints `Error: 429 …` and goes
 * back to its editor), and exited when Pi quits to its shell (`/quit`, or one Ctrl-D on an empty
 * editor); each within 2 s of the screen changing. Pi never asks permission.
 */
import { readFileSync } from 'node:fs';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import type { FakeModelServer } from '../agents/fake-model-server';
import {
  expectOnlyLoopback,
  expectWithin,
  JourneyWorld,
  requireCli,
  startServer,
  waitForReplyInTranscript,
} from '../journeys/support';
import { pi } from '../../src/main/engine/runtimes';
import { piConversationOfLaunch, PI_SIGNATURES } from '../../src/main/engine/runtimes/pi';
import { liveEvidenceIO } from '../../src/main/engine/evidence-io';

const SEAT = 'pi@act';
const BUDGET_MS = 2000;

describe('activity of a real Pi seat', () => {
  const installed = requireCli('pi');
  let server: FakeModelServer;
  let closed: number;
  let j: JourneyWorld;
  beforeAll(async () => {
    ({ server, closed } = await startServer({ slowChunks: 6, slowMs: 1000 }));
  });
  afterAll(async () => {
    await server?.close();
    if (server && installed()) expectOnlyLoopback(server);
  });
  beforeEach(async () => {
    j = new JourneyWorld(server, closed, ['pi']);
    await j.up('act', [{ id: 'pi', runtime: 'pi' }]);
    await j.seen(SEAT, { activity: 'idle' });
  });
  afterEach(async () => {
    await j?.cleanup();
  });

  it('working during a slow reply, idle after it, each within 2 s; the conversation is known from launch', async () => {
    const { row } = await j.seen(SEAT, { activity: 'idle' });
    expect(row.conversationId).toMatch(/^[0-9a-f-]{36}$/);
    // Pi's own command line is just "pi"; the pane's wrapper still carries the argv Rigdesk ran
    // (`pi --session <file>`), and the adapter reads the same id from that file's header.
    const panePid = Number(j.w.tmux.run(['display-message', '-p', '-t', SEAT, '#{pane_pid}']).trim());
    const wrapperArgv = readFileSync(`/proc/${panePid}/cmdline`, 'utf8').split('\0');
    const launched = wrapperArgv.slice(wrapperArgv.indexOf('rigdesk-seat') + 1);
    expect(launched).toContain('--session');
    expect(piConversationOfLaunch(launched, liveEvidenceIO)).toBe(row.conversationId);
    await j.type(SEAT, 'tell me SLOW');
    const t0 = await j.screenShows(SEAT, PI_SIGNATURES.working, 'the Working... line');
    expectWithin(await j.seen(SEAT, { activity: 'working' }, t0), BUDGET_MS, 'working');
    await j.screenShows(SEAT, /tick6/, 'the end of the reply');
    const t1 = await j.screenShows(SEAT, /^(?![\s\S]*Working\.\.\.)[\s\S]*tick6/, 'the Working... line gone');
    expectWithin(await j.seen(SEAT, { activity: 'idle' }, t1), BUDGET_MS, 'idle');
    // Pi wrote the reply into the conversation Rigdesk named at launch.
    const file = await waitForReplyInTranscript(pi, j.homeOf('pi'), j.dir(), row.conversationId!, 'tick6');
    expect(JSON.parse(readFileSync(file, 'utf8').split('\n')[0]!)).toMatchObject({
      type: 'session',
      id: row.conversationId,
    });
    expect((await j.row(SEAT)).conversationId).toBe(row.conversationId);
  });

  it('needs_input: usage_limit on a 429, within 2 s of the error', async () => {
    await j.type(SEAT, 'LIMIT');
    const t = await j.screenShows(SEAT, /Retry failed after \d+ attempts?: 429/, 'the final 429 line');
    expectWithin(
      await j.seen(SEAT, { activity: 'needs_input', needsInput: 'usage_limit' }, t),
      BUDGET_MS,
      'needs_input (usage_limit)',
    );
  });

  it('exited when Pi quits to its shell with /quit, within 2 s', async () => {
    await j.type(SEAT, '/quit');
    const t = await j.screenShows(SEAT, /\[rigdesk\] pi exited with status 0/, "the wrapper's exit line");
    expectWithin(await j.seen(SEAT, { activity: 'exited' }, t), BUDGET_MS, 'exited');
  });

  it('one Ctrl-D on an empty editor quits Pi too: exited within 2 s', async () => {
    j.w.tmux.run(['send-keys', '-t', SEAT, 'C-d']);
    const t = await j.screenShows(SEAT, /\[rigdesk\] pi exited with status 0/, "the wrapper's exit line");
    expectWithin(await j.seen(SEAT, { activity: 'exited' }, t), BUDGET_MS, 'exited');
  });
});
