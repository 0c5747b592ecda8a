import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { dispatch } from '../../src/main/engine/api';
import { answerPrompt } from '../../src/main/engine/prompts/answer';
import { waitFor } from '../support/tmux';
import { chromiumMissing, launchChromium } from './chromium';
import { claudeAppWorld, type ClaudeAppWorld } from './claude-world';
import { strictUrl, WireClient } from './helpers';

const missing = chromiumMissing();

/**
 * Prompts in the window: a real Claude Code seat at a real permission prompt (the fake model
 * server asks for a Bash call) shows needs input in the rail and in Decisions within 2 s, and
 * Approve / Deny from Decisions reach the pane. Nothing is mocked between the page and the pane;
 * two tabs watch at once.
 */
describe.skipIf(!!missing)('permission prompts of a real Claude seat in the window', () => {
  let w: ClaudeAppWorld;
  let chrome: Awaited<ReturnType<typeof launchChromium>>;
  let topo: Page;
  let decisions: Page;
  const errors: string[] = [];

  beforeAll(async () => {
    w = await claudeAppWorld();
    chrome = await launchChromium();
    topo = chrome.browser.pages()[0] ?? (await chrome.browser.newPage());
    decisions = await chrome.browser.newPage();
    for (const p of [topo, decisions]) p.on('pageerror', (e) => errors.push(String(e)));
    await topo.goto(strictUrl(w.serve));
    await decisions.goto(strictUrl(w.serve, '#/decisions'));
  }, 120_000);
  afterAll(async () => {
    await chrome?.close();
    await w?.cleanup();
  }, 60_000);

  const pane = () => w.engine.store.sessions.live('lead@act')!.paneId;
  const screen = () => w.world.tmux.capture(pane());
  const row = (p: Page, seat: string, state: string) => p.locator(`[data-seat-row="${seat}"][data-state="${state}"]`);
  const item = () => decisions.locator('[data-prompt="lead@act"]');
  const events = (kind: string) => w.engine.store.events.list({ seat: 'lead@act', kind });
  /** The pane's screen once it has not changed for 1 s (a turn's last redraws are over). */
  const steadyScreen = () => {
    let last = screen();
    let since = Date.now();
    return waitFor(
      () => {
        const now = screen();
        if (now !== last) [last, since] = [now, Date.now()];
        return Date.now() - since >= 1000 ? now : undefined;
      },
      { timeoutMs: 30_000, intervalMs: 100, what: 'a steady screen' },
    );
  };
  const ask = async (cmd: string) => {
    await row(topo, 'lead@act', 'idle').waitFor({ timeout: 60_000 });
    w.world.tmux.run(['send-keys', '-t', pane(), '-l', `RUN: ${cmd}`]);
    w.world.tmux.run(['send-keys', '-t', pane(), 'Enter']);
    await waitFor(() => screen().includes('Do you want to proceed?'), {
      timeoutMs: 30_000,
      intervalMs: 25,
      what: 'permission prompt on screen',
    });
    return Date.now();
  };

  it('a Claude seat at a permission prompt shows needs input in the rail (with its reason) and in Decisions within 2 s', async () => {
    const t0 = await ask('touch approved.txt');
    const [inTopology, inDecisions] = await Promise.all([
      row(topo, 'lead@act', 'needs_input')
        .filter({ hasText: 'permission: Bash' })
        .waitFor({ timeout: 10_000 })
        .then(() => Date.now() - t0),
      item()
        .getByRole('button', { name: 'Approve', exact: true })
        .waitFor({ timeout: 10_000 })
        .then(() => Date.now() - t0),
    ]);
    process.stdout.write(`prompt on screen → rail ${inTopology} ms, Decisions ${inDecisions} ms\n`);
    expect(inTopology).toBeLessThan(2000);
    expect(inDecisions).toBeLessThan(2000);
    // The evidence is the prompt as on screen: what would run, and the question.
    const evidence = await item().getByTestId('prompt-screen').textContent();
    expect(evidence).toContain('touch approved.txt');
    expect(evidence).toContain('Do you want to proceed?');
    expect(await topo.getByTestId('decisions-count').textContent()).toBe('1');
    expect(await topo.locator('[data-count="needs_input"] .num').textContent()).toBe('1');
    // While it waits, the waiting pane is looked at each second, not the whole roster (a `ps`).
    await new Promise((r) => setTimeout(r, 1000));
    const before = w.pushes.stats;
    await new Promise((r) => setTimeout(r, 4000));
    const after = w.pushes.stats;
    expect(after.promptPolls - before.promptPolls, 'prompt looks in 4 s').toBeGreaterThanOrEqual(2);
    expect(after.seatPolls - before.seatPolls, 'roster polls in 4 s (one a second before)').toBeLessThanOrEqual(2);
  });

  it('Approve from Decisions reaches the pane: the tool runs and the answer is recorded', async () => {
    expect(existsSync(join(w.work, 'approved.txt'))).toBe(false);
    await item().getByRole('button', { name: 'Approve', exact: true }).click();
    await waitFor(() => existsSync(join(w.work, 'approved.txt')), {
      timeoutMs: 15_000,
      what: 'the approved tool call ran',
    });
    await waitFor(() => !screen().includes('Do you want to proceed?'), { what: 'prompt gone' });
    expect(events('seat.prompt_answered').at(-1)?.data).toMatchObject({
      choice: 'approve',
      keys: ['Enter'],
      reason: 'answered from the Rigdesk window',
    });
    await decisions.getByTestId('decisions-none').waitFor({ timeout: 10_000 });
    // The approved call's result goes back to the model and the turn goes on: it is over when
    // the model's answer to the tool result is on screen and the seat reads idle again.
    await waitFor(() => screen().includes('ACK tool result'), {
      timeoutMs: 30_000,
      what: 'the turn after the approved call',
    });
    await row(topo, 'lead@act', 'idle').waitFor({ timeout: 30_000 });
  });

  it('an answer with no prompt waiting, for a different prompt than the one seen, or for a shell seat types nothing and is refused on record', async () => {
    const c = await WireClient.open(w.serve);
    // "Types nothing" is judged on the screen, so it must be one nothing else is still drawing:
    // the same for a full second before the refused answers.
    const before = await steadyScreen();
    expect(await c.call('prompts.answer', { seat: 'lead@act', choice: 'approve' })).toMatchObject({
      ok: false,
      code: 'PROMPT_NOT_WAITING',
    });
    expect(await c.call('prompts.answer', { seat: 'sh@act', choice: 'approve' })).toMatchObject({
      ok: false,
      code: 'DECISION_CHOICE_INVALID',
    });
    expect(await c.call('prompts.answer', { seat: 'ghost@act', choice: 'approve' })).toMatchObject({
      ok: false,
      code: 'SEAT_NOT_FOUND',
    });
    expect(await c.call('prompts.answer', { seat: 'lead@act', choice: 'maybe' })).toMatchObject({
      ok: false,
      code: 'BAD_USAGE',
    });
    expect(screen()).toBe(before);
    await ask('touch third.txt');
    const listed = await c.call('prompts.list', {});
    expect(listed).toMatchObject({
      ok: true,
      prompts: [
        { seat: 'lead@act', reason: 'permission', choices: ['approve', 'allow_always', 'deny', 'deny_with_message'] },
      ],
    });
    expect(
      await c.call('prompts.answer', { seat: 'lead@act', choice: 'approve', fingerprint: '0123456789abcdef' }),
    ).toMatchObject({ ok: false, code: 'PROMPT_NOT_WAITING' });
    await new Promise((r) => setTimeout(r, 500));
    expect(screen()).toContain('Do you want to proceed?');
    expect(existsSync(join(w.work, 'third.txt'))).toBe(false);
    expect(events('seat.prompt_answer_refused').map((e) => e.data.code)).toEqual([
      'PROMPT_NOT_WAITING',
      'PROMPT_NOT_WAITING',
    ]);
    // The window still offers the prompt: nothing was answered.
    await item().getByRole('button', { name: 'Approve', exact: true }).waitFor({ timeout: 5000 });
    c.close();
  });

  it('Deny from Decisions cancels the tool call: nothing runs, the answer is recorded', async () => {
    // The prompt for third.txt is still waiting (the refused answers above typed nothing).
    await item().getByRole('button', { name: 'Deny', exact: true }).waitFor({ timeout: 5000 });
    await item().getByRole('button', { name: 'Deny', exact: true }).click();
    // The seat's pane may be narrow (the first screen puts it in a grid slot): Claude cuts the word.
    await waitFor(() => !screen().includes('Do you want to proceed?') && screen().includes('Interrupte'), {
      timeoutMs: 10_000,
      what: 'prompt cancelled',
    }).catch((e: Error) => {
      throw new Error(
        `${e.message}\n${screen()}\n${JSON.stringify(events('seat.prompt_answer_refused').at(-1)?.data)}`,
      );
    });
    await new Promise((r) => setTimeout(r, 500));
    expect(existsSync(join(w.work, 'third.txt'))).toBe(false);
    expect(events('seat.prompt_answered').at(-1)?.data).toMatchObject({ choice: 'deny', keys: ['Escape'] });
    await decisions.getByTestId('decisions-none').waitFor({ timeout: 10_000 });
    expect(errors).toEqual([]);
  });

  it('Deny with a message from the card: nothing runs, and the message reaches the model as the next turn', async () => {
    // After a denial the fake model answers the next message with the rejected tool result: one
    // plain turn first, then a new prompt (as the next case does).
    w.world.tmux.run(['send-keys', '-t', pane(), '-l', 'hello']);
    w.world.tmux.run(['send-keys', '-t', pane(), 'Enter']);
    await ask('touch refused.txt');
    await item().getByRole('button', { name: 'Deny with a message…' }).click();
    const box = item().getByRole('textbox', { name: 'message to lead@act' });
    await box.fill('make a folder named refused instead');
    await box.press('Enter');
    // Read with the pane's wrapping taken out: the slot it is drawn in may be narrow.
    // No other reply between the ACK and the message (an earlier ACK above a message still in the
    // box would match too), and the engine's send of it over and verified before the next step types.
    const sent = () =>
      events('seat.send').some((e) => e.data.preview === 'make a folder named refused instead' && e.data.verified);
    await waitFor(() => /●ACK[^●]*makeafoldernamedrefusedinstead/.test(screen().replace(/\s+/g, '')) && sent(), {
      timeoutMs: 30_000,
      what: "the model's reply to the message, and the send of it verified",
    });
    expect(existsSync(join(w.work, 'refused.txt'))).toBe(false);
    expect(events('seat.prompt_answered').at(-1)?.data).toMatchObject({ choice: 'deny_with_message', by: 'window' });
    await row(topo, 'lead@act', 'idle').waitFor({ timeout: 30_000 });
  });

  it("a question's option from the card: the agent gets that answer", async () => {
    w.world.tmux.run(['send-keys', '-t', pane(), '-l', 'ASK: Pick a side? | Left | Right']);
    w.world.tmux.run(['send-keys', '-t', pane(), 'Enter']);
    await item().getByRole('button', { name: '2. Right' }).click({ timeout: 30_000 });
    await waitFor(() => /Pick a side\? → Right/.test(screen()), { timeoutMs: 30_000, what: 'the option taken' });
    expect(events('seat.prompt_answered').at(-1)?.data).toMatchObject({ choice: 'option', by: 'window' });
    await row(topo, 'lead@act', 'idle').waitFor({ timeout: 30_000 });
  });

  it('a pane that changes hands between the check and the keys refuses the answer and types nothing', async () => {
    // After a denial the fake model answers the next message with the rejected tool result (and
    // the engine reads Claude as working until then): one plain turn first, then a new prompt.
    w.world.tmux.run(['send-keys', '-t', pane(), '-l', 'hello']);
    w.world.tmux.run(['send-keys', '-t', pane(), 'Enter']);
    await ask('touch fourth.txt');
    const sink = join(w.world.root, 'keys-after-respawn');
    writeFileSync(sink, '');
    // Between the decision and the write, another program takes the pane (new pid): it would
    // receive the Enter. Revalidation must refuse.
    const r = await answerPrompt(w.engine.ports, 'lead@act', 'approve', {
      beforeRevalidate: () => void w.world.tmux.run(['respawn-pane', '-k', '-t', pane(), `cat > ${sink}`]),
    });
    expect(r).toMatchObject({ ok: false, code: 'TARGET_CHANGED' });
    await new Promise((res) => setTimeout(res, 500));
    expect(readFileSync(sink, 'utf8')).toBe('');
    expect((await dispatch(w.engine, 'events', { seat: 'lead@act' })).ok).toBe(true);
  });
});
