import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { waitFor } from '../support/tmux';
import { chromiumMissing, launchChromium } from './chromium';
import { type AppWorld, appWorld, strictUrl } from './helpers';

const missing = chromiumMissing();
const SEATS = ['lead', 'w1', 'w2', 'w3', 'scout'].map((m) => `${m}@ws`);

/**
 * The workspace's acceptance with shell seats, in real Chromium over `rigdesk serve` (real engine,
 * real tmux, the contract checked in the page): four live panes at once that survive a reload,
 * the palette, the keys, a bad spec's problems, and a first rig from the "New rig" form.
 */
describe.skipIf(!!missing)('the workspace', () => {
  let w: AppWorld;
  let chrome: Awaited<ReturnType<typeof launchChromium>>;
  let page: Page;
  const errors: string[] = [];

  beforeAll(async () => {
    w = await appWorld('ws', ['lead', 'w1', 'w2', 'w3', 'scout'], { monitor: true });
    chrome = await launchChromium({ width: 1600, height: 1000 });
    page = chrome.browser.pages()[0] ?? (await chrome.browser.newPage());
    page.on('pageerror', (e) => errors.push(String(e)));
    await page.goto(strictUrl(w.serve));
    await page.locator('[data-seat-row="lead@ws"]').waitFor();
  }, 120_000);
  afterAll(async () => {
    await chrome?.close();
    await w?.cleanup();
  });

  const screen = (seat: string) => page.evaluate((s) => window.__rigdeskScreens?.[s]?.text() ?? '', seat);
  const live = (seat: string) => page.locator(`[data-pane="${seat}"] [data-terminal-state="live"]`);
  const palette = async (text: string) => {
    await page.keyboard.press('Control+k');
    await page.getByRole('combobox', { name: 'Command' }).fill(text);
    await page.keyboard.press('Enter');
  };
  const slots = () =>
    page
      .locator('[data-pane]')
      .evaluateAll((els) => els.map((e) => `${e.getAttribute('data-slot')}:${e.getAttribute('data-pane')}`));

  it('2x2 with four seats pinned: text sent to each (rigdesk send) shows in its pane, all four live at once', async () => {
    for (const seat of SEATS.slice(0, 4)) await page.getByRole('button', { name: `Pin ${seat}` }).click();
    expect(await slots()).toEqual(['1:lead@ws', '2:w1@ws', '3:w2@ws', '4:w3@ws']);
    for (const seat of SEATS.slice(0, 4)) await live(seat).waitFor({ timeout: 15_000 });
    expect(await page.locator('[data-pane] [aria-pressed="true"][aria-label="Unpin"]').count()).toBe(4);
    for (const [i, seat] of SEATS.slice(0, 4).entries()) {
      await waitFor(() => /[$#] ?$/m.test(w.world.tmux.capture(w.engine.store.sessions.live(seat)!.paneId).trimEnd()), {
        what: `${seat} prompt`,
      });
      const sent = await w.world.cli(['send', seat, `echo marker-$((${i}+40))`, '--json']);
      expect(sent.code, sent.stdout + sent.stderr).toBe(0);
    }
    for (const [i, seat] of SEATS.slice(0, 4).entries())
      await waitFor(async () => new RegExp(`^marker-${i + 40}$`, 'm').test(await screen(seat)), {
        what: `marker in ${seat}'s pane`,
        timeoutMs: 15_000,
      });
    expect(w.serve.ctx.terminals.count).toBe(4);
  });

  it('a reload keeps the layout and the pins', async () => {
    await page.locator('[data-pane="w2@ws"] [data-testid=terminal]').click();
    await page.waitForTimeout(400); // the layout is saved a moment after it changes
    await page.reload();
    await page.locator('[data-grid="2x2"]').waitFor();
    await waitFor(async () => (await slots()).join() === '1:lead@ws,2:w1@ws,3:w2@ws,4:w3@ws', { what: 'slots back' });
    expect(await page.locator('[data-pane] [aria-pressed="true"][aria-label="Unpin"]').count()).toBe(4);
    expect(await page.locator('[data-pane].focused').getAttribute('data-pane')).toBe('w2@ws');
    for (const seat of SEATS.slice(0, 4)) await live(seat).waitFor({ timeout: 15_000 });
    await waitFor(async () => /^marker-40$/m.test(await screen('lead@ws')), { what: 'lead screen after reload' });
  });

  it('Ctrl+K, part of a seat name, Enter: that seat is focused, where it is or in the focused slot', async () => {
    await palette('w1');
    await page.locator('[data-pane="w1@ws"].focused').waitFor();
    expect(await page.evaluate(() => document.activeElement?.closest('[data-pane]')?.getAttribute('data-pane'))).toBe(
      'w1@ws',
    );
    await palette('scou');
    await page.locator('[data-pane="scout@ws"].focused').waitFor();
    await live('scout@ws').waitFor({ timeout: 15_000 });
    expect((await slots())[1]).toBe('2:scout@ws');
  });

  it('layouts by name from the palette, Ctrl+1..9 focuses a slot, magnify and back', async () => {
    await palette('Layout 3x3');
    await page.locator('[data-grid="3x3"]').waitFor();
    await palette('Layout 1x2');
    await page.locator('[data-grid="1x2"]').waitFor();
    expect(await page.locator('[data-pane], .pane.empty').count()).toBe(2);
    await page.keyboard.press('Control+1');
    await page.locator('[data-pane="lead@ws"].focused').waitFor();
    await page.keyboard.press('Control+Shift+M');
    await page.locator('.grid.magnified [data-pane="lead@ws"]').waitFor();
    expect(await page.locator('[data-pane]').count()).toBe(1);
    await page.keyboard.press('Control+Shift+M');
    await page.locator('.grid:not(.magnified)').waitFor();
    await palette('Layout 2x2');
    await page.locator('[data-grid="2x2"]').waitFor();
  });

  it('find in the focused terminal; ? lists the keys; Escape gives the focus back to the pane', async () => {
    await page.keyboard.press('Control+1');
    await page.keyboard.press('Control+Shift+F');
    await page.getByLabel('Find in terminal').fill('marker-40');
    await page.keyboard.press('Enter');
    await page.locator('.find-count').filter({ hasText: /of/ }).waitFor();
    await page.keyboard.press('Escape');
    expect(await page.getByLabel('Find in terminal').count()).toBe(0);
    // `?` outside a terminal shows every binding.
    await page.locator('.rail').click({ position: { x: 5, y: 5 } });
    await page.keyboard.press('?');
    const help = page.getByRole('dialog', { name: 'Keys' });
    await help.waitFor();
    expect(await help.textContent()).toContain('Ctrl+Shift+Enter');
    await page.keyboard.press('Escape');
    await help.waitFor({ state: 'detached' });
    await waitFor(
      () => page.evaluate(() => document.activeElement?.closest('[data-pane]')?.getAttribute('data-pane') ?? ''),
      { what: 'focus back in the pane' },
    );
  });

  it("the focused pane's hidden textarea blinks no caret (each blink was a frame of an idle window); the find box's does", async () => {
    const caretOf = () =>
      page.evaluate(() => {
        const el = document.activeElement;
        const s = el ? getComputedStyle(el) : undefined;
        return { cls: el?.className ?? '', animation: s?.getPropertyValue('caret-animation'), color: s?.caretColor };
      });
    await page.keyboard.press('Control+1');
    await waitFor(async () => (await caretOf()).cls.includes('xterm-helper-textarea'), { what: 'focus in the pane' });
    expect(await caretOf()).toMatchObject({ animation: 'manual', color: 'rgba(0, 0, 0, 0)' });
    await page.keyboard.press('Control+Shift+F');
    await page.getByLabel('Find in terminal').waitFor();
    expect((await caretOf()).animation).toBe('auto');
    await page.keyboard.press('Escape');
  });

  it('stop asks first; Cancel leaves the seat running, Stop stops it; Launch brings it back', async () => {
    const pane = page.locator('[data-pane="w3@ws"]');
    await pane.getByRole('button', { name: 'Actions for w3@ws' }).click();
    await pane.getByRole('menuitem', { name: 'Stop…' }).click();
    const dialog = page.getByRole('dialog', { name: 'Stop w3@ws?' });
    await dialog.getByRole('button', { name: 'Cancel' }).click();
    await new Promise((r) => setTimeout(r, 300));
    expect(w.engine.store.sessions.live('w3@ws')).toBeDefined();
    await pane.getByRole('button', { name: 'Actions for w3@ws' }).click();
    await pane.getByRole('menuitem', { name: 'Stop…' }).click();
    await dialog.getByRole('button', { name: 'Stop' }).click();
    await page.locator('[data-seat-row="w3@ws"][data-state="stopped"]').waitFor({ timeout: 15_000 });
    expect(w.engine.store.sessions.live('w3@ws')).toBeUndefined();
    // The note it leaves lies over a pane's corner, and lets the clicks there through to it.
    const note = page.locator('.note.done').first();
    await note.waitFor();
    const at = (await note.boundingBox())!;
    const under = await page.evaluate(
      ([x, y]) => document.elementFromPoint(x!, y!)?.closest('.note, [data-pane]')?.className ?? '',
      [at.x + at.width / 2, at.y + at.height / 2],
    );
    expect(under, 'what a click on the note reaches').not.toMatch(/\bnote\b/);
    await pane.getByRole('button', { name: 'Launch', exact: true }).click();
    await live('w3@ws').waitFor({ timeout: 15_000 });
  });

  it('a bad spec brought up from the window lists its problems with their lines and fields; nothing is launched', async () => {
    const bad = join(w.world.root, 'bad.yaml');
    writeFileSync(
      bad,
      [
        'name: broken',
        'pods:',
        '  - id: team',
        '    members:',
        '      - id: one',
        '        runtime: nosuch',
        '        cwd: .',
        '      - { id: two, runtime: shell, cwd: ./missing-folder, command: bash }',
        '',
      ].join('\n'),
    );
    const before = w.world.sessions().length;
    await palette('Bring up a rig');
    const dialog = page.getByRole('dialog', { name: 'Bring up a rig' });
    await dialog.getByLabel('rig spec path').fill(bad);
    await dialog.getByRole('button', { name: 'Bring up' }).click();
    await dialog.locator('[data-refusal]').waitFor();
    const lines = await dialog
      .locator('[data-problem-line]')
      .evaluateAll((els) => els.map((e) => e.getAttribute('data-problem-line')));
    expect(lines).toEqual(['6', '8']);
    expect(await dialog.locator('[data-problem-line="6"]').textContent()).toContain('nosuch');
    expect(await dialog.locator('[data-problem-line="8"] .field-name').textContent()).toContain('cwd');
    expect(w.world.sessions().length).toBe(before);
    expect(w.engine.store.rigs.exists('broken')).toBe(false);
    await page.keyboard.press('Escape');
  });

  it('New rig: the agent CLIs found here, a folder and a count; the spec is shown before it is written, then brought up', async () => {
    const folder = join(w.world.root, 'first');
    mkdirSync(folder);
    await palette('New rig');
    const dialog = page.getByRole('dialog', { name: 'New rig' });
    await dialog.locator('label').filter({ hasText: 'shell' }).getByRole('radio').check();
    await dialog.getByLabel('folder').fill(folder);
    await dialog.getByLabel('members').fill('2');
    await dialog.getByLabel('rig name').fill('first');
    await dialog.getByRole('button', { name: 'Show the spec' }).click();
    const spec = dialog.getByTestId('new-rig-spec');
    await spec.waitFor();
    expect(await spec.textContent()).toContain('name: first');
    expect(w.engine.store.rigs.exists('first')).toBe(false);
    await dialog.getByRole('button', { name: 'Write it and bring it up' }).click();
    await page.locator('[data-seat-row="worker1@first"]').waitFor({ timeout: 20_000 });
    await waitFor(() => w.world.sessions().filter((s) => s.seat.endsWith('@first')).length === 2, {
      what: 'two seats up',
    });
    expect(errors).toEqual([]);
  });
});
