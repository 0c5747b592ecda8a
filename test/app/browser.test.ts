import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { dispatch } from '../../src/main/engine/api';
import { DeepLinkRouter } from '../../src/main/shell/deeplink';
import { waitFor } from '../support/tmux';
import { chromiumMissing, launchChromium } from './chromium';
import { type AppWorld, appWorld, strictUrl } from './helpers';

const missing = chromiumMissing();

/**
 * The window in real Chromium against the serve host, a real engine and real tmux: nothing is
 * mocked between the page and the pane, and every answer and push the page gets is parsed
 * against the contract (`?strict=1`).
 */
describe.skipIf(!!missing)('the window in Chromium over rigdesk serve', () => {
  let w: AppWorld;
  let chrome: Awaited<ReturnType<typeof launchChromium>>;
  let page: Page;
  const errors: string[] = [];

  beforeAll(async () => {
    w = await appWorld('trio');
    chrome = await launchChromium();
    page = chrome.browser.pages()[0] ?? (await chrome.browser.newPage());
    page.on('pageerror', (e) => errors.push(String(e)));
    await page.goto(strictUrl(w.serve));
  }, 120_000);
  afterAll(async () => {
    await chrome?.close();
    await w?.cleanup();
  });

  const screen = (seat: string) => page.evaluate((s) => window.__rigdeskScreens?.[s]?.text() ?? '', seat);
  const paneOf = (seat: string) => w.engine.store.sessions.live(seat)!.paneId;
  const live = (seat: string) => page.locator(`[data-pane="${seat}"] [data-terminal-state="live"]`);

  it('the rail shows the three-seat rig from its spec, grouped by host, rig and pod, each with its live state', async () => {
    await page.locator('[data-rail-rig="trio"]').waitFor();
    expect(
      await page.locator('[data-seat-row]').evaluateAll((els) => els.map((e) => e.getAttribute('data-seat-row'))),
    ).toEqual(['lead@trio', 'worker1@trio', 'worker2@trio']);
    await page.waitForFunction(
      () => [...document.querySelectorAll('[data-seat-row]')].every((b) => b.getAttribute('data-state') === 'idle'),
      undefined,
      { timeout: 15_000 },
    );
    expect(await page.locator('[data-count="idle"] .num').textContent()).toBe('3');
    expect(await page.getByTestId('connection').textContent()).toBe('ws open');
  });

  it('arrow keys move between seats in the rail, and Enter opens one', async () => {
    await page.locator('[data-seat-row="lead@trio"]').focus();
    await page.keyboard.press('ArrowDown');
    expect(await page.evaluate(() => document.activeElement?.getAttribute('data-seat-row'))).toBe('worker1@trio');
    await page.keyboard.press('ArrowUp');
    expect(await page.evaluate(() => document.activeElement?.getAttribute('data-seat-row'))).toBe('lead@trio');
  });

  it('clicking a seat opens its live terminal in the grid; typing echo $((6*7)) shows 42 from the real pane', async () => {
    await page.locator('[data-seat-row="lead@trio"]').click();
    await live('lead@trio').waitFor({ timeout: 15_000 });
    // Wait for bash's prompt in the pane before typing (keys sent earlier can race the shell).
    await waitFor(() => /[$#] ?$/m.test(w.world.tmux.capture(paneOf('lead@trio')).trimEnd()), { what: 'prompt' });
    await page.locator('[data-pane="lead@trio"] [data-testid=terminal]').click();
    await page.keyboard.type('echo $((6*7))');
    await page.keyboard.press('Enter');
    await waitFor(async () => /^42$/m.test(await screen('lead@trio')), {
      what: '42 in the browser terminal',
      timeoutMs: 15_000,
    });
    expect(w.world.tmux.capture(paneOf('lead@trio'))).toMatch(/^42$/m);
    expect(errors).toEqual([]);
  });

  it('text typed into the pane by another client (tmux send-keys) appears in the browser', async () => {
    w.world.tmux.run(['send-keys', '-t', paneOf('lead@trio'), '-l', 'echo from-another-client-$((100+23))']);
    w.world.tmux.run(['send-keys', '-t', paneOf('lead@trio'), 'Enter']);
    await waitFor(async () => /^from-another-client-123$/m.test(await screen('lead@trio')), {
      what: 'send-keys output in the browser',
      timeoutMs: 15_000,
    });
  });

  it("the focused seat's details show its facts and its edges", async () => {
    await page.getByRole('tab', { name: 'Seat details' }).click();
    const details = page.locator('[data-details="lead@trio"]');
    await details.waitFor();
    expect(await details.locator('[data-fact="runtime"]').textContent()).toBe('shell');
    expect(await details.locator('[data-fact="pane"]').textContent()).toContain(paneOf('lead@trio'));
    expect(await details.locator('[data-fact="edges"]').textContent()).toBe('delegates to worker1');
    expect(await details.locator('[data-fact="attach"]').textContent()).toContain('tmux');
  });

  it('a deep link routed through the app handler focuses that seat; malformed and foreign links are refused', async () => {
    // The same router the Electron shell uses for first launch, second instance and open-url,
    // with the serve host's focus push as its action.
    const router = new DeepLinkRouter(
      (s) => !!w.engine.store.rigs.seat(s),
      (s) => w.serve.ctx.pushes.focus(s),
    );
    expect(router.route('rigdesk://seat/trio/worker2')).toEqual({ ok: true, seat: 'worker2@trio' });
    await page.locator('[data-pane="worker2@trio"].focused').waitFor({ timeout: 5000 });
    await live('worker2@trio').waitFor({ timeout: 15_000 });
    for (const bad of [
      'rigdesk://seat/trio/ghost',
      'rigdesk://seat/trio',
      'rigdesk://seat/trio/lead/x',
      'rigdesk://evil/trio/lead',
      'https://seat/trio/lead',
      'rigdesk://seat/trio/lead?x=1',
      'rigdesk://seat/..%2Ftrio/lead',
      'javascript:alert(1)',
    ]) {
      expect(router.route(bad).ok, bad).toBe(false);
    }
    await new Promise((r) => setTimeout(r, 300));
    expect(await page.locator('[data-pane="worker2@trio"].focused').count()).toBe(1);
  });

  it('`open` over the engine contract (rigdesk open <seat>) focuses the seat in the window', async () => {
    expect(await dispatch(w.engine, 'open', { link: 'rigdesk://seat/trio/worker1' })).toMatchObject({
      ok: true,
      seat: 'worker1@trio',
    });
    await page.locator('[data-pane="worker1@trio"].focused').waitFor({ timeout: 5000 });
  });

  it('a pane that leaves the grid is parked: its viewer closes on the host, and coming back shows it again', async () => {
    await page.keyboard.press('Control+k');
    await page.getByRole('combobox', { name: 'Command' }).fill('Layout 1');
    await page.keyboard.press('Enter');
    await page.locator('[data-grid="1"]').waitFor();
    // One slot: only the focused seat (worker1) is live; lead and worker2 are parked.
    await waitFor(() => w.serve.ctx.terminals.count === 1, { what: 'viewers closed' });
    await page.locator('[data-seat-row="lead@trio"]').click();
    await waitFor(async () => /^42$/m.test(await screen('lead@trio')), {
      what: 'lead screen restored',
      timeoutMs: 15_000,
    });
    expect(w.serve.ctx.terminals.count).toBe(1);
  });

  it('Decisions says so when nothing waits', async () => {
    await page.keyboard.press('Control+Shift+D');
    await page.getByTestId('decisions-none').waitFor({ timeout: 5000 });
    expect(errors).toEqual([]);
  });
});
