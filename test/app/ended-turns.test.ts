import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { dispatch } from '../../src/main/engine/api';
import { DEFAULT_LAYOUT } from '../../src/renderer/src/state/grid';
import { waitFor } from '../support/tmux';
import { type Chrome, chromiumMissing, openWindow } from './chromium';
import { type ClaudeAppWorld, claudeAppWorld } from './claude-world';
import { strictUrl } from './helpers';

const missing = chromiumMissing();

/**
 * A real Claude seat that finishes a turn while the person looks elsewhere shows in Decisions
 * with its reply's first lines and a reply box; the reply goes through safe send and the model
 * answers it; Dismiss, or having the seat on screen, leaves no card.
 */
describe.skipIf(!!missing)('turns that ended while the person looked elsewhere', () => {
  let w: ClaudeAppWorld;
  let chrome: Chrome;
  let page: Page;
  let errors: string[] = [];

  beforeAll(async () => {
    // Turns of a few seconds (SLOW: 4 chunks 1.5 s apart), as an agent's are: the monitor sees each
    // one work before it ends (a turn over within one look is not seen as a turn).
    w = await claudeAppWorld({ slowChunks: 4, slowMs: 1500 });
    // No seat on screen: lead's turns end out of sight.
    expect((await dispatch(w.engine, 'workspace.saveLayout', { layout: DEFAULT_LAYOUT })).ok).toBe(true);
    ({ chrome, page, errors } = await openWindow(strictUrl(w.serve, '#/decisions')));
    await page.locator('[data-seat-row="lead@act"][data-state="idle"]').waitFor({ timeout: 60_000 });
  }, 120_000);
  afterAll(async () => {
    await chrome?.close();
    await w?.cleanup();
  }, 60_000);

  const pane = () => w.engine.store.sessions.live('lead@act')!.paneId;
  const card = () => page.locator('[data-ended="lead@act"]');
  const type = (text: string) => {
    w.world.tmux.run(['send-keys', '-t', pane(), '-l', text]);
    w.world.tmux.run(['send-keys', '-t', pane(), 'Enter']);
  };

  it("shows the reply's first lines, and a reply from its box reaches the model", async () => {
    type('SLOW hello out of sight');
    await card().waitFor({ timeout: 45_000 });
    await expect
      .poll(() => card().getByTestId('reply-lines').textContent(), { timeout: 10_000 })
      .toContain('ACK SLOW hello out of sight');
    const box = card().getByRole('textbox', { name: 'reply to lead@act' });
    await box.fill('SLOW and a reply from the card');
    await box.press('Enter');
    // Sent: the card is read, and the next turn's end brings it back with the new reply.
    await waitFor(() => w.world.tmux.capture(pane()).includes('ACK SLOW and a reply from the card'), {
      timeoutMs: 30_000,
      what: "the model's answer to the reply",
    });
    // The send is on record once its delivery is confirmed, which may come after the reply shows.
    await waitFor(
      () =>
        w.engine.store.events
          .list({ seat: 'lead@act', kind: 'seat.send' })
          .some((e) => String(e.data.preview).includes('and a reply from the card')),
      { timeoutMs: 20_000, what: 'the send on record' },
    );
    await expect
      .poll(() => card().getByTestId('reply-lines').textContent(), { timeout: 30_000 })
      .toContain('ACK SLOW and a reply from the card');
    if (process.env.SHOTS) {
      for (const [width, height] of [
        [1280, 800],
        [1920, 1080],
      ] as const) {
        await page.setViewportSize({ width, height });
        await page.screenshot({ path: `${process.env.SHOTS}/ended-${width}x${height}.png` });
      }
    }
  }, 120_000);

  it('Dismiss leaves no card, and a seat on screen when its turn ends shows none', async () => {
    await card().getByRole('button', { name: 'Dismiss' }).click();
    await card().waitFor({ state: 'detached' });
    await page.locator('[data-seat-row="lead@act"]').click();
    await page.locator('[data-pane="lead@act"] [data-terminal-state="live"]').waitFor({ timeout: 20_000 });
    await page.locator('[data-seat-row="lead@act"][data-state="idle"]').waitFor({ timeout: 60_000 });
    type('hello in plain sight');
    await waitFor(() => w.world.tmux.capture(pane()).includes('ACK hello in plain sight'), {
      timeoutMs: 30_000,
      what: 'the reply',
    });
    await page.locator('[data-seat-row="lead@act"][data-state="idle"]').waitFor({ timeout: 30_000 });
    await page.waitForTimeout(1500);
    expect(await card().count()).toBe(0);
    expect(errors).toEqual([]);
  });
});
