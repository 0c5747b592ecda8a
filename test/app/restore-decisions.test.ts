/**
 * Restore in the window: the Decisions panel lists restore decisions with their evidence, and
 * answering one starts (or does not start) that seat. Real Chromium, the serve host, a real engine
 * and real tmux; the seats are STAND-IN Claude programs (test/restore/standin-claude.ts) so that a
 * transcript can be deleted and restore can ask.
 */
import { existsSync, mkdirSync, realpathSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startServe, type ServeHandle } from '../../src/server/serve';
import { standInRigYaml, standInTranscript, writeClaudeStandIn } from '../restore/standin-claude';
import { RigWorld } from '../support/rig';
import { waitFor } from '../support/tmux';
import { chromiumMissing, launchChromium } from './chromium';
import { RENDERER_DIR, strictUrl } from './helpers';

const missing = chromiumMissing();

describe.skipIf(!!missing)('restore decisions in the window', () => {
  let w: RigWorld;
  let serve: ServeHandle;
  let chrome: Awaited<ReturnType<typeof launchChromium>>;
  let page: Page;
  const ids: Record<string, string> = {};

  beforeAll(async () => {
    w = new RigWorld();
    mkdirSync(join(w.root, 'work'), { recursive: true });
    const work = realpathSync(join(w.root, 'work'));
    const bin = writeClaudeStandIn(join(w.root, 'bin'));
    const up = await w.cli(['up', w.spec('rig.yaml', standInRigYaml('crew', bin, w.root, ['a', 'b'])), '--json']);
    expect(up.code, up.stdout + up.stderr).toBe(0);
    for (const s of up.json.seats) ids[s.seat.split('@')[0]] = s.launched.conversationId;
    const cfg = (m: string) => join(w.root, `cfg-${m}`);
    for (const m of ['a', 'b'])
      await waitFor(() => existsSync(standInTranscript(cfg(m), work, ids[m]!)), { what: `${m} transcript` });
    w.tmux.kill(); // a simulated reboot
    rmSync(standInTranscript(cfg('b'), work, ids.b!));
    const r = await w.cli(['restore', 'crew', '--json']);
    expect(r.json.outcome, r.stdout).toBe('partially_restored');
    serve = await startServe({ engine: w.engine(), port: 0, staticDir: RENDERER_DIR });
    chrome = await launchChromium();
    page = chrome.browser.pages()[0] ?? (await chrome.browser.newPage());
    await page.goto(strictUrl(serve, '#/decisions'));
  }, 120_000);
  afterAll(async () => {
    await chrome?.close();
    await serve?.close();
    w?.cleanup();
  });

  it('lists the decision with its evidence, and answering "fresh" starts that seat on a new conversation', async () => {
    const item = page.locator('[data-decision-card][data-seat="b@crew"]');
    await item.waitFor({ timeout: 15_000 });
    expect(await item.textContent()).toContain('transcript missing');
    expect(await item.locator('pre.evidence').textContent()).toContain(ids.b!);
    expect(w.sessions().map((s) => s.seat)).toEqual(['a@crew']);
    // It counts as needing the person: in the top strip and on its rail row.
    expect(await page.locator('[data-count="needs_input"] .num').textContent()).toBe('1');
    await page.locator('[data-seat-row="b@crew"][data-state="needs_input"]').waitFor();
    await item.getByLabel('reason').fill('the transcript was lost');
    await item.getByRole('button', { name: 'fresh' }).click();
    await waitFor(() => w.sessions().some((s) => s.seat === 'b@crew'), { timeoutMs: 15_000, what: 'b@crew started' });
    const ps = await w.cli(['ps', '--json']);
    const b = ps.json.seats.find((s: { seat: string }) => s.seat === 'b@crew');
    expect(b.state).toBe('running');
    expect(b.conversationId).not.toBe(ids.b);
    // Answered, it leaves the panel and shows in the history of answers.
    await page.locator('[data-decision-card][data-seat="b@crew"]').waitFor({ state: 'detached', timeout: 15_000 });
    await page.locator('[data-history="decision"]').filter({ hasText: 'b@crew' }).waitFor({ timeout: 10_000 });
    expect(await page.locator('[data-history="decision"]').first().textContent()).toContain('the transcript was lost');
    const ev = await w.cli(['events', '--seat', 'b@crew', '--json']);
    expect(ev.json.events.find((e: { kind: string }) => e.kind === 'decision.answered').data).toMatchObject({
      choice: 'fresh',
      reason: 'the transcript was lost',
    });
  });
});
