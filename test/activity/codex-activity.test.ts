/**
 * Issue 4 acceptance with the real Codex CLI (devDependency, background daemon off) in a Rigdesk
 * seat: `rigdesk ps --json` reports working while Codex waits for its first token (the `Working`
 * line) and while a reply streams (no Working line then: the rollout's task_started/task_complete
 * say it), idle after, needs_input: permission at its approval prompt, needs_input: usage_limit
 * on a 429, and exited when the CLI quits to its shell; each within 2 s of the screen changing.
 */
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { waitFor } from '../support/tmux';
import type { FakeModelServer } from '../agents/fake-model-server';
import { expectOnlyLoopback, expectWithin, JourneyWorld, requireCli, startServer } from '../journeys/support';
import { CODEX_SCREEN } from '../../src/main/engine/runtimes/screens/codex';
import { codex } from '../../src/main/engine/runtimes';

/** Codex drops an Enter that follows typed text at once (the adapter's own delay). */
const ENTER_DELAY = codex.submitDelayMs!;
const SEAT = 'cx@act';
const BUDGET_MS = 2000;

describe('activity of a real Codex seat', () => {
  const installed = requireCli('codex');
  let server: FakeModelServer;
  let closed: number;
  let j: JourneyWorld;
  beforeAll(async () => {
    ({ server, closed } = await startServer({ slowChunks: 6, slowMs: 1000, waitMs: 5000 }));
  });
  afterAll(async () => {
    await server?.close();
    if (server && installed()) expectOnlyLoopback(server);
  });
  beforeEach(async () => {
    j = new JourneyWorld(server, closed, ['codex']);
    await j.up('act', [{ id: 'cx', runtime: 'codex' }]);
    await j.seen(SEAT, { activity: 'idle' });
  });
  afterEach(async () => {
    await j?.cleanup();
  });

  it('working while it waits for the first token (its Working line), idle after the reply, each within 2 s', async () => {
    await j.type(SEAT, 'hello WAIT', ENTER_DELAY);
    const t0 = await j.screenShows(SEAT, CODEX_SCREEN.working, 'the Working line');
    expectWithin(await j.seen(SEAT, { activity: 'working' }, t0), BUDGET_MS, 'working');
    const t1 = await j.screenShows(SEAT, /Worked for \d+s/, 'the reply and its done marker');
    expect(j.screen(SEAT)).toContain('ACK hello WAIT');
    expectWithin(await j.seen(SEAT, { activity: 'idle' }, t1), BUDGET_MS, 'idle');
  });

  it("the notify program Rigdesk installs in the seat's own CODEX_HOME reports the end of each turn", async () => {
    const config = readFileSync(join(j.fx.codex!.codexHome, 'config.toml'), 'utf8');
    expect(config).toMatch(/^notify = \["\/bin\/sh", "-c", .*# rigdesk-activity-hook$/m);
    // A top-level key: it must sit before the first [table].
    expect(config.indexOf('notify = [')).toBeLessThan(config.indexOf('\n['));
    await j.type(SEAT, 'hello notify', ENTER_DELAY);
    const hook = join(j.w.home, 'hooks', `${SEAT}.json`);
    await waitFor(() => existsSync(hook) && JSON.parse(readFileSync(hook, 'utf8')).type === 'agent-turn-complete', {
      timeoutMs: 30_000,
      what: 'notify payload',
    });
    // Codex also notifies for its side threads (the title request), so the payload's thread is not
    // always the seat's: the notice is a trigger to look, and the transcript says whose turn ended.
    const payload = JSON.parse(readFileSync(hook, 'utf8'));
    expect(payload['thread-id']).toMatch(/^[0-9a-f-]{36}$/);
  });

  it('working while a reply streams with no Working line on screen (the rollout says so), idle after', async () => {
    await j.type(SEAT, 'tell me SLOW', ENTER_DELAY);
    const t0 = await j.screenShows(SEAT, /tick2/, 'streamed text');
    expectWithin(await j.seen(SEAT, { activity: 'working' }, t0), BUDGET_MS, 'working');
    // The screen alone would not say so: Codex hides its Working line while text streams.
    const screen = j.screen(SEAT);
    expect(screen).not.toMatch(CODEX_SCREEN.working);
    expect(screen).not.toMatch(/tick6/);
    const t1 = await j.screenShows(SEAT, /tick6[\s\S]*Worked for \d+s/, 'the end of the reply');
    expectWithin(await j.seen(SEAT, { activity: 'idle' }, t1), BUDGET_MS, 'idle');
  });

  it('needs_input: permission at the approval prompt, within 2 s of the prompt', async () => {
    await j.type(SEAT, 'RUN: echo x > f', ENTER_DELAY);
    const t = await j.screenShows(SEAT, CODEX_SCREEN.permission, 'the approval prompt');
    expectWithin(
      await j.seen(SEAT, { activity: 'needs_input', needsInput: 'permission' }, t),
      BUDGET_MS,
      'needs_input (permission)',
    );
  });

  it('needs_input: usage_limit on a 429, within 2 s of the message', async () => {
    await j.type(SEAT, 'LIMIT', ENTER_DELAY);
    const t = await j.screenShows(SEAT, CODEX_SCREEN.usageLimit, 'the usage-limit message');
    expectWithin(
      await j.seen(SEAT, { activity: 'needs_input', needsInput: 'usage_limit' }, t),
      BUDGET_MS,
      'needs_input (usage_limit)',
    );
  });

  it('exited when Codex quits to its shell (/quit), within 2 s', async () => {
    await j.type(SEAT, '/quit', ENTER_DELAY);
    const t = await j.screenShows(SEAT, /\[rigdesk\] codex exited with status 0/, "the wrapper's exit line");
    expectWithin(await j.seen(SEAT, { activity: 'exited' }, t), BUDGET_MS, 'exited');
  });
});
