import { existsSync, mkdirSync } from 'node:fs';
import { join } from 'node:path';
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { dispatch } from '../../src/main/engine/api';
import { startShell } from '../../src/main/shell/app';
import { DEFAULT_LAYOUT } from '../../src/renderer/src/state/grid';
import { CLAUDE_BIN } from '../agents/claude-fixture';
import { startInTmux } from '../agents/agent-run';
import { CLAUDE_SCREEN } from '../../src/main/engine/runtimes/screens/claude';
import { DONE_MS } from '../../src/renderer/src/views/Notes';
import { REPO } from '../support/rig';
import { TestTmux, waitFor } from '../support/tmux';
import { chromiumMissing, launchChromium } from './chromium';
import { type ClaudeAppWorld, claudeAppWorld } from './claude-world';
import { fakeElectron } from './electron-fake';
import { RENDERER_DIR, strictUrl } from './helpers';

const missing = chromiumMissing();
const LEAD = 'lead@act';
/** Where the screenshots go (ignored by git): open them and look. */
const SHOTS = join(REPO, '.tmp', 'window');

/**
 * The workspace with a real Claude Code seat (against the fake model server on 127.0.0.1) in real
 * Chromium over `rigdesk serve`: a permission prompt in the counts, the rail and Decisions, Ctrl+J
 * and the approve key; the desktop shell's notifier (Electron API injected, a FAKE that records)
 * on the same host stays quiet while the seat's pane has the focus. Then restart, fresh, fork and a
 * refused launch, all from the window.
 */
describe.skipIf(!!missing)('the workspace with a real Claude seat', () => {
  let w: ClaudeAppWorld;
  let chrome: Awaited<ReturnType<typeof launchChromium>>;
  let page: Page;
  let electron: ReturnType<typeof fakeElectron>;
  const hand = new TestTmux('rdw-hand');
  const errors: string[] = [];

  beforeAll(async () => {
    w = await claudeAppWorld();
    electron = fakeElectron();
    await startShell({
      api: electron.api,
      ctx: w.serve.ctx,
      argv: [],
      preloadPath: '/p',
      rendererRoot: RENDERER_DIR,
      trayImages: { idle: 'idle.png', attention: 'attention.png' },
    });
    chrome = await launchChromium({ width: 1600, height: 1000 });
    page = chrome.browser.pages()[0] ?? (await chrome.browser.newPage());
    page.on('pageerror', (e) => errors.push(String(e)));
    // The grid starts empty, so the clicks below place lead in slot 1 and sh in slot 2 (the first
    // screen's fill orders by attention, which a busy machine's start-up timing would decide).
    expect((await dispatch(w.engine, 'workspace.saveLayout', { layout: DEFAULT_LAYOUT })).ok).toBe(true);
    await page.goto(strictUrl(w.serve));
    await page.locator(`[data-seat-row="${LEAD}"]`).waitFor();
  }, 120_000);
  afterAll(async () => {
    await chrome?.close();
    hand.tryRun(['kill-server']);
    await w?.cleanup();
  }, 60_000);

  const pane = () => w.engine.store.sessions.live(LEAD)!.paneId;
  const screen = () => w.world.tmux.capture(pane());
  const rowOf = (state: string) => page.locator(`[data-seat-row="${LEAD}"][data-state="${state}"]`);
  const focusedPane = () =>
    page.evaluate(() => document.querySelector('[data-pane].focused')?.getAttribute('data-pane'));
  const ask = async (cmd: string) => {
    await rowOf('idle').waitFor({ timeout: 60_000 });
    w.world.tmux.run(['send-keys', '-t', pane(), '-l', `RUN: ${cmd}`]);
    w.world.tmux.run(['send-keys', '-t', pane(), 'Enter']);
    await waitFor(() => screen().includes('Do you want to proceed?'), {
      timeoutMs: 30_000,
      intervalMs: 25,
      what: 'prompt',
    });
    return Date.now();
  };
  const menu = async (seat: string, item: string) => {
    const p = page.locator(`[data-pane="${seat}"]`);
    await p.getByRole('button', { name: `Actions for ${seat}` }).click();
    await p.getByRole('menuitem', { name: item }).click();
  };
  /** The shell has seen the seats push with the seat waiting (so its notifier has decided). */
  const shellSaw = () =>
    waitFor(() => w.serve.ctx.pushes.seats.find((s) => s.seat === LEAD)?.activity === 'needs_input', {
      what: 'the needs_input push',
    });

  it('a permission prompt shows in the counts, the rail (with the reason) and Decisions within 2 s, and no notification fires while its pane is focused', async () => {
    await page.locator(`[data-seat-row="${LEAD}"]`).click();
    await page.locator('[data-seat-row="sh@act"]').click();
    await page.keyboard.press('Control+1');
    await page.locator(`[data-pane="${LEAD}"].focused [data-terminal-state="live"]`).waitFor({ timeout: 20_000 });
    const t0 = await ask('touch one.txt');
    const [inCounts, inRail, inDecisions] = await Promise.all([
      page
        .locator('[data-count="needs_input"] .num')
        .filter({ hasText: /^1$/ })
        .waitFor({ timeout: 10_000 })
        .then(() => Date.now() - t0),
      rowOf('needs_input')
        .filter({ hasText: 'permission: Bash' })
        .waitFor({ timeout: 10_000 })
        .then(() => Date.now() - t0),
      page
        .locator(`[data-decision-card][data-seat="${LEAD}"]`)
        .getByRole('button', { name: 'Approve', exact: true })
        .waitFor({ timeout: 10_000 })
        .then(() => Date.now() - t0),
    ]);
    process.stdout.write(`prompt on screen → counts ${inCounts} ms, rail ${inRail} ms, Decisions ${inDecisions} ms\n`);
    mkdirSync(SHOTS, { recursive: true });
    await page.screenshot({ path: join(SHOTS, 'claude-prompt-1600x1000.png') });
    expect(Math.max(inCounts, inRail, inDecisions)).toBeLessThan(2000);
    await shellSaw();
    expect(electron.notifications).toEqual([]);
    expect(electron.tray.image).toBe('attention.png');
  });

  it('Ctrl+J focuses the seat that waits; the approve key answers it and the reply lands', async () => {
    await page.keyboard.press('Control+2');
    await page.locator('[data-pane="sh@act"].focused').waitFor();
    await page.keyboard.press('Control+j');
    await waitFor(async () => (await focusedPane()) === LEAD, { what: 'lead focused' });
    await page.keyboard.press('Control+Shift+Enter');
    await waitFor(() => existsSync(join(w.work, 'one.txt')), { timeoutMs: 15_000, what: 'the approved call ran' });
    await waitFor(() => screen().includes('ACK tool result'), { timeoutMs: 30_000, what: 'the reply' });
    await page.getByTestId('decisions-none').waitFor({ timeout: 10_000 });
    expect(w.engine.store.events.list({ seat: LEAD, kind: 'seat.prompt_answered' }).at(-1)?.data).toMatchObject({
      choice: 'approve',
      by: 'window',
    });
    await page.locator('[data-history="prompt"]').first().waitFor({ timeout: 10_000 });
  });

  it('the same prompt while another pane has the focus does notify; the deny key answers it', async () => {
    await page.keyboard.press('Control+2');
    await page.locator('[data-pane="sh@act"].focused').waitFor();
    await ask('touch two.txt');
    await shellSaw();
    await waitFor(() => electron.notifications.length === 1, { what: 'one notification' });
    expect(electron.notifications[0]!.title).toBe(`${LEAD} needs you`);
    await page.keyboard.press('Control+j');
    await waitFor(async () => (await focusedPane()) === LEAD, { what: 'lead focused' });
    // The key answers the card a person sees: under load the prompts push can reach the window
    // after the seats push the notifier acted on, and a key pressed before it says "no prompt waits".
    await page
      .locator(`[data-decision-card][data-seat="${LEAD}"]`)
      .getByRole('button', { name: 'Deny', exact: true })
      .waitFor({
        timeout: 10_000,
      });
    await page.keyboard.press('Control+Shift+Backspace');
    try {
      await waitFor(() => !screen().includes('Do you want to proceed?'), { timeoutMs: 10_000, what: 'prompt gone' });
    } catch (e) {
      const notes = await page.locator('.notes').textContent();
      const events = w.engine.store.events.list({ seat: LEAD }).slice(-6);
      throw new Error(`${String(e)}\nwindow notes: ${notes}\nevents: ${JSON.stringify(events)}\nscreen:\n${screen()}`);
    }
    expect(existsSync(join(w.work, 'two.txt'))).toBe(false);
    // After a denial the fake model answers the next message with the rejected tool result.
    w.world.tmux.run(['send-keys', '-t', pane(), '-l', 'hello']);
    w.world.tmux.run(['send-keys', '-t', pane(), 'Enter']);
  });

  it('restart --keep-conversation from the window: a new pid on the same conversation, both in its timeline', async () => {
    await rowOf('idle').waitFor({ timeout: 60_000 });
    const before = w.engine.store.sessions.live(LEAD)!;
    const oldPid = w.serve.ctx.pushes.seats.find((s) => s.seat === LEAD)!.pid!;
    await menu(LEAD, 'Restart (keep conversation)');
    await waitFor(
      () => w.engine.store.events.list({ seat: LEAD, kind: 'seat.restart' }).some((e) => e.data.step === 'end'),
      { timeoutMs: 60_000, what: 'the restart ended' },
    );
    const end = w.engine.store.events.list({ seat: LEAD, kind: 'seat.restart' }).find((e) => e.data.step === 'end')!;
    expect(end.data).toMatchObject({ outcome: 'resumed', conversationId: before.conversationId });
    const newPid = Number(end.data.panePid);
    expect(newPid).not.toBe(oldPid);
    await page.getByRole('tab', { name: 'Seat details' }).click();
    const timeline = page.getByLabel(`timeline of ${LEAD}`);
    await timeline
      .getByText(`restarted (resumed): pid ${newPid}, conversation ${before.conversationId}`)
      .waitFor({ timeout: 10_000 });
    expect(await timeline.textContent()).toContain(`restart: stopping pid`);
  });

  it('fresh shows its plan first, and Cancel leaves the seat as it was', async () => {
    await rowOf('idle').waitFor({ timeout: 60_000 });
    const before = w.engine.store.sessions.live(LEAD)!;
    await menu(LEAD, 'Fresh…');
    const dialog = page.getByRole('dialog', { name: `Start ${LEAD} fresh?` });
    const plan = dialog.getByTestId('fresh-plan');
    await plan.waitFor({ timeout: 15_000 });
    expect(await plan.textContent()).toContain(`Kept: conversation ${before.conversationId}`);
    expect(await dialog.getByRole('button', { name: 'Start fresh' }).isDisabled()).toBe(true);
    await dialog.getByRole('button', { name: 'Cancel' }).click();
    await new Promise((r) => setTimeout(r, 500));
    expect(w.engine.store.sessions.live(LEAD)).toMatchObject({ id: before.id, conversationId: before.conversationId });
    expect(w.engine.store.events.list({ seat: LEAD, kind: 'seat.fresh_with_reason' })).toEqual([]);
  });

  it('fork from the window creates the new seat on a new conversation', async () => {
    const cid = w.engine.store.sessions.live(LEAD)!.conversationId;
    await menu(LEAD, 'Fork as…');
    const dialog = page.getByRole('dialog', { name: `Fork ${LEAD}` });
    await dialog.getByLabel('new member').fill('lead2');
    await dialog.getByRole('button', { name: 'Fork' }).click();
    // The dialog stays until the engine has answered: the fork proved on its new conversation.
    await dialog.waitFor({ state: 'detached', timeout: 60_000 });
    await page.locator('[data-seat-row="lead2@act"]').waitFor({ timeout: 10_000 });
    await page.locator('[data-pane="lead2@act"].focused').waitFor({ timeout: 10_000 });
    await waitFor(() => w.engine.store.sessions.live('lead2@act')?.conversationId, {
      timeoutMs: 60_000,
      what: 'fork bound',
    });
    const forked = w.engine.store.sessions.live('lead2@act')!.conversationId;
    expect(forked).toBeTruthy();
    expect(forked).not.toBe(cid);
  });

  it('launching a seat whose conversation is live elsewhere shows CONVERSATION_LIVE_ELSEWHERE with its hint, and nothing starts', async () => {
    const cid = w.engine.store.sessions.live(LEAD)!.conversationId!;
    await menu(LEAD, 'Stop…');
    await page
      .getByRole('dialog', { name: `Stop ${LEAD}?` })
      .getByRole('button', { name: 'Stop' })
      .click();
    await rowOf('stopped').waitFor({ timeout: 20_000 });
    // A person's own Claude on the same conversation, on their own tmux server.
    const other = startInTmux(hand, w.fx.env, 'mine', w.work, [CLAUDE_BIN, '--resume', cid]);
    await waitFor(() => CLAUDE_SCREEN.idle.test(hand.capture(other.paneId)), {
      timeoutMs: 45_000,
      what: 'the other pane idle',
    });
    await page.locator(`[data-pane="${LEAD}"]`).getByRole('button', { name: 'Launch', exact: true }).click();
    const refusal = page.locator('[data-refusal="CONVERSATION_LIVE_ELSEWHERE"]');
    await refusal.waitFor({ timeout: 30_000 });
    expect(await refusal.locator('.hint').textContent()).toBeTruthy();
    expect(await refusal.locator('.message').textContent()).toContain(other.paneId);
    expect(w.engine.store.sessions.live(LEAD)).toBeUndefined();
    expect(w.world.sessions().some((s) => s.seat === LEAD)).toBe(false);
    // It stays past a done note's time, until read; Escape (outside a terminal) dismisses it.
    await new Promise((r) => setTimeout(r, DONE_MS + 500));
    expect(await refusal.isVisible()).toBe(true);
    await page.keyboard.press('Escape');
    await refusal.waitFor({ state: 'detached', timeout: 2000 });
    expect(errors).toEqual([]);
  });
});
