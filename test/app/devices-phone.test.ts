import { mkdirSync } from 'node:fs';
import type { BrowserContext, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { chromiumMissing, launchChromium } from './chromium';
import { type AppWorld, appWorld } from './helpers';
import { waitFor } from '../support/tmux';

/**
 * The window as an installable app on a phone, in real Chromium at 390x844 against a real engine
 * (three shell seats, one with an open restore decision): the phone layout, nothing sideways, the
 * chosen seat's screen read live and a reply sent to it, and a service worker that keeps only the
 * shell. Screenshots go to RIGDESK_SHOTS when set (to be looked at), with the desktop's beside them.
 */

const SHOTS = process.env.RIGDESK_SHOTS;
const skip = chromiumMissing();

describe.skipIf(skip)('the phone layout and the installable app', () => {
  let w: AppWorld;
  let browser: { browser: BrowserContext; close(): Promise<void> };
  let page: Page;

  beforeAll(async () => {
    w = await appWorld('phone', ['lead', 'worker1', 'worker2']);
    w.engine.store.restore.decisions.open({
      seat: 'worker2@phone',
      rig: 'phone',
      reason: 'transcript_missing',
      runtime: 'shell',
      conversationId: null,
      snapshotId: null,
      choices: ['fresh', 'leave_stopped'],
      evidence: {},
    });
    browser = await launchChromium({ width: 390, height: 844 });
    page = await browser.browser.newPage();
    page.on('pageerror', (e) => process.stdout.write(`pageerror: ${e.message}\n`));
    await page.goto(w.serve.url);
    await page.locator('[data-layout="phone"]').waitFor();
  }, 120_000);

  afterAll(async () => {
    await browser?.close();
    await w?.cleanup();
  });

  it('at 390x844: the decision card first, the rail, nothing scrolls sideways', async () => {
    const card = page.locator('.phone-needs [data-decision-card]');
    await card.first().waitFor();
    await expect(page.locator('[data-testid="phone-needs"]').textContent()).resolves.toBe('1 needs you');
    await page.locator('.phone-rail [data-seat-row]').first().waitFor();
    // The card stands above the rail.
    const cardTop = (await card.first().boundingBox())!.y;
    const railTop = (await page.locator('.phone-rail').boundingBox())!.y;
    expect(cardTop).toBeLessThan(railTop);
    expect(await page.evaluate(() => document.scrollingElement!.scrollWidth)).toBeLessThanOrEqual(390);
    // One tap answers: the card's buttons are at least 44 px high.
    const button = card.first().locator('.buttons button').first();
    expect((await button.boundingBox())!.height).toBeGreaterThanOrEqual(44);
    if (SHOTS) {
      mkdirSync(SHOTS, { recursive: true });
      await page.screenshot({ path: `${SHOTS}/phone-390x844.png` });
    }
  });

  it('a seat chosen in the rail shows its screen, live, and the reply box sends to it', async () => {
    await page.locator('.phone-rail [data-seat-row="lead@phone"]').click();
    const screen = page.locator('[data-testid="phone-screen"]');
    await screen.waitFor();
    await page.getByLabel('reply to lead@phone').fill('echo phone-said-$((6*7))');
    await page.getByRole('button', { name: 'Send' }).click();
    // The shell ran it: the screen read again shows the answer.
    await waitFor(async () => ((await screen.textContent()) ?? '').includes('phone-said-42'), {
      what: 'the reply on the seat screen',
      timeoutMs: 20_000,
    });
    expect(await page.evaluate(() => document.scrollingElement!.scrollWidth)).toBeLessThanOrEqual(390);
    if (SHOTS) await page.screenshot({ path: `${SHOTS}/phone-seat-390x844.png`, fullPage: true });
  });

  it('is installable: a manifest with icons, and a service worker that caches the shell only', async () => {
    const manifest = await page.evaluate(async () => {
      const r = await fetch('/manifest.webmanifest');
      return { type: r.headers.get('content-type'), body: await r.json() };
    });
    expect(manifest.type).toBe('application/manifest+json');
    expect(manifest.body.icons.map((i: { sizes: string }) => i.sizes)).toEqual(['192x192', '512x512', 'any']);
    await page.evaluate(() => navigator.serviceWorker.ready.then(() => undefined));
    // Under the worker now: the shell again, an API-like path, a pairing link, an answer.
    await page.reload();
    await page.locator('[data-layout="phone"]').waitFor();
    await page.evaluate(async () => {
      await fetch('/pair/ABCDEFGH').catch(() => undefined);
      await fetch('/nothing.json').catch(() => undefined);
    });
    await page.locator('.phone-needs [data-decision-card] button', { hasText: 'leave stopped' }).click();
    await waitFor(async () => (await page.locator('.phone-needs [data-decision-card]').count()) === 0, {
      what: 'the decision answered',
    });
    const cached = await page.evaluate(async () => {
      const out: string[] = [];
      for (const k of await caches.keys())
        for (const r of await (await caches.open(k)).keys()) out.push(new URL(r.url).pathname);
      return out;
    });
    expect(cached).toContain('/');
    expect(cached.some((p) => p.startsWith('/assets/'))).toBe(true);
    for (const p of cached) expect(p).toMatch(/^\/(index\.html)?$|^\/assets\/|^\/manifest\.webmanifest$|^\/icon/);
  });

  it('the desktop at 1280x800 keeps its workspace (no phone layout)', async () => {
    await page.setViewportSize({ width: 1280, height: 800 });
    await page.locator('.app [data-pane]').first().waitFor();
    expect(await page.locator('[data-layout="phone"]').count()).toBe(0);
    if (SHOTS) await page.screenshot({ path: `${SHOTS}/desktop-1280x800.png` });
  });

  it('the window lists paired devices under Devices and revokes one', async () => {
    // A device paired as the pairing link would (the HTTP side is devices.test.ts's).
    w.engine.devices.listenAt('http://127.0.0.1:9');
    const p = w.engine.devices.pair('kitchen phone');
    if (!p.ok) throw new Error(JSON.stringify(p));
    const paired = w.engine.devices.redeem(p.url.split('/pair/')[1]!, '127.0.0.2');
    if (!paired.ok) throw new Error(JSON.stringify(paired));
    await page.getByRole('button', { name: 'Devices' }).click();
    const row = page.locator(`[data-device="${paired.device.id}"]`);
    await row.waitFor();
    await expect(row.textContent()).resolves.toContain('kitchen phone');
    await expect(row.textContent()).resolves.toContain('127.0.0.2');
    if (SHOTS) await page.screenshot({ path: `${SHOTS}/devices-1280x800.png` });
    await row.getByRole('button', { name: 'Revoke' }).click();
    await waitFor(async () => ((await row.textContent()) ?? '').includes('revoked'), { what: 'the row says revoked' });
    expect(w.engine.devices.authenticate(paired.token, '127.0.0.2')).toBeUndefined();
  });
});
