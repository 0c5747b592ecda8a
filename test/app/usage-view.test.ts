/**
 * The Usage view and the rail's context meter, in real Chromium over `rigdesk serve`, from real
 * samples: real Claude Code, Pi and Codex seats (in two pods) answer twice each, offline
 * against the fake model server, which reports exactly the token figures each prompt names. The
 * engine reads their records and keeps its samples in its SQLite store; the view draws them.
 * - the view is reached by keyboard (the palette's "Usage view", U on a rail row);
 * - it shows one line per seat whose total is the seat's ps tokens, grows live with the second
 *   reply, switches to the cost estimate (naming its price source) and to one line per pod;
 * - each seat's context meter and the rail's `[data-context="<seat>"]` carry ps's contextPct;
 * - Codex's plan windows show with their used share and reset time.
 * Screenshots of the view at 1280x800 and 1920x1080 go to RIGDESK_SHOTS (default .tmp/window).
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ActivityMonitor } from '../../src/main/engine/activity/monitor';
import { claudeCode, codex, pi } from '../../src/main/engine/runtimes';
import { PushHub } from '../../src/main/window-hub/pushes';
import { startServe, type ServeHandle } from '../../src/server/serve';
import type { PsRow } from '../../src/shared/contract';
import type { FakeModelServer } from '../agents/fake-model-server';
import {
  expectOnlyLoopback,
  JourneyWorld,
  requireCli,
  startServer,
  waitForReplyInTranscript,
} from '../journeys/support';
import { REPO } from '../support/rig';
import { waitFor } from '../support/tmux';
import { chromiumMissing, launchChromium } from './chromium';
import { RENDERER_DIR, strictUrl } from './helpers';

const missing = chromiumMissing();
const SHOTS = process.env.RIGDESK_SHOTS || join(REPO, '.tmp', 'window');
const RIG = 'spend';
const LEAD = `lead@${RIG}`;
const PI = `pi@${RIG}`;
const CODER = `coder@${RIG}`;
const SEATS = [
  { seat: LEAD, runtime: 'claude-code' as const, adapter: claudeCode, pod: 'plan' },
  { seat: PI, runtime: 'pi' as const, adapter: pi, pod: 'build' },
  { seat: CODER, runtime: 'codex' as const, adapter: codex, pod: 'build' },
];
/** Codex's plan windows as the fake server reports them: 42 % of 5 h, 7 % of a week, with their resets. */
const RESET_PRIMARY = 1_893_456_000; // epoch seconds, a fixed future moment
const LIMITS = `RATELIMIT:42:300:${RESET_PRIMARY}:7:10080:1894060800`;
/** What the fake server reports for each reply: `USAGE:<in>:<out>:<cacheRead>:<cacheWrite>`. */
const REPLIES: Record<string, [string, string]> = {
  [LEAD]: ['tally USAGE:61001:733:4100:1300', 'again USAGE:30002:420:65000:900'],
  [PI]: ['tally USAGE:70001:555:2000:0', 'again USAGE:40000:300:30000:0'],
  [CODER]: ['tally USAGE:100000:321:12000:0', `again USAGE:150000:222:90000:0 ${LIMITS}`],
};

describe.skipIf(!!missing)('the Usage view and the rail meter, from real samples (Claude Code, Pi and Codex)', () => {
  const installed = requireCli('claude-code', 'pi', 'codex');
  let server: FakeModelServer;
  let j: JourneyWorld;
  let serve: ServeHandle | undefined;
  let monitor: ActivityMonitor | undefined;
  let chrome: Awaited<ReturnType<typeof launchChromium>> | undefined;
  let page: Page;
  const errors: string[] = [];
  const conv: Record<string, string> = {};

  const spec = () => {
    const lines = [`name: ${RIG}`, 'pods:'];
    for (const [i, s] of SEATS.entries()) {
      if (SEATS[i - 1]?.pod !== s.pod) lines.push(`  - id: ${s.pod}`, '    members:');
      lines.push(`      - id: ${s.seat.split('@')[0]}`);
      lines.push(`        runtime: ${s.runtime}`, '        cwd: "./work"', '        env:');
      for (const [k, v] of Object.entries(j.envOf(s.runtime))) lines.push(`          ${k}: ${JSON.stringify(v)}`);
    }
    return j.w.spec(`${RIG}.yaml`, `${lines.join('\n')}\n`);
  };
  /** One reply of each seat, sent as the CLI sends, waited for in its transcript and until idle again. */
  const replyEach = async (n: 0 | 1) => {
    for (const s of SEATS) {
      const sent = await j.cli(['send', s.seat, REPLIES[s.seat]![n], '--json']);
      expect(sent.json, `${s.seat}: ${sent.stdout}${sent.stderr}`).toMatchObject({ ok: true });
    }
    for (const s of SEATS)
      await waitForReplyInTranscript(
        s.adapter,
        j.homeOf(s.runtime),
        j.dir(),
        conv[s.seat]!,
        `ACK ${n === 0 ? 'tally' : 'again'}`,
      );
    for (const s of SEATS) await j.seen(s.seat, { activity: 'idle' });
  };
  /** ps's rows once both seats show the tokens of `replies` replies (the records are read as ps runs). */
  const rowsAfter = async (outs: Record<string, number>): Promise<Record<string, PsRow>> =>
    waitFor(
      async () => {
        const rows = Object.fromEntries((await j.rows()).map((r) => [r.seat, r]));
        return SEATS.every((s) => rows[s.seat]?.tokensOut === outs[s.seat]) ? rows : undefined;
      },
      { timeoutMs: 30_000, intervalMs: 250, what: `ps with ${JSON.stringify(outs)} tokens out` },
    );
  const legend = (key: string) => page.locator(`[data-usage-series="${key}"]`);

  beforeAll(async () => {
    const s = await startServer();
    server = s.server;
    j = new JourneyWorld(server, s.closed, ['claude-code', 'pi', 'codex']);
  });
  afterAll(async () => {
    await chrome?.close();
    monitor?.stop();
    await serve?.close();
    await j?.cleanup();
    await server?.close();
    if (server && installed()) expectOnlyLoopback(server);
  }, 60_000);

  it('opens by keyboard, and draws a line per seat from the samples of the first replies', async () => {
    // The fake model is priced by the person's settings, so both seats have a cost estimate.
    mkdirSync(j.w.home, { recursive: true });
    writeFileSync(
      join(j.w.home, 'settings'),
      'models:\n  fake-model:\n    usd_per_mtok: { input: 2, cache_read: 0.5, output: 8 }\n',
    );
    const up = await j.w.cli(['up', spec(), '--json']);
    expect(up.code, up.stdout + up.stderr).toBe(0);
    for (const s of SEATS) conv[s.seat] = (await j.seen(s.seat, { activity: 'idle', named: true })).row.conversationId!;

    const engine = j.w.engine();
    monitor = new ActivityMonitor(engine.ports);
    await monitor.start();
    serve = await startServe({
      engine,
      port: 0,
      staticDir: RENDERER_DIR,
      pushes: new PushHub(engine, { activityEvents: true }),
    });
    chrome = await launchChromium({ width: 1280, height: 800 });
    page = chrome.browser.pages()[0] ?? (await chrome.browser.newPage());
    page.on('pageerror', (e) => errors.push(String(e)));
    await page.goto(strictUrl(serve));
    await page.locator(`[data-seat-row="${LEAD}"]`).waitFor();

    // From the palette, by name.
    await page.keyboard.press('Control+k');
    await page.getByRole('combobox', { name: 'Command' }).fill('Usage view');
    await page.keyboard.press('Enter');
    await page.locator(`[data-usage-view="${RIG}"]`).waitFor({ timeout: 10_000 });
    expect(await page.locator('[data-view-tab="usage"]').getAttribute('aria-selected')).toBe('true');
    // No reply yet: nothing sampled, and the view says so rather than drawing zeros.
    await page.locator('[data-usage-empty]').waitFor({ timeout: 10_000 });

    await replyEach(0);
    const rows = await rowsAfter({ [LEAD]: 733, [PI]: 555, [CODER]: 321 });
    // Live: the pushed rows' new tokens make the view ask again; no reload, no key.
    for (const s of SEATS) {
      const total = rows[s.seat]!.tokensIn! + rows[s.seat]!.tokensOut!;
      await legend(s.seat)
        .and(page.locator(`[data-tokens="${total}"]`))
        .waitFor({ timeout: 30_000 });
    }
    expect(await page.locator('[data-usage-series]').count()).toBe(3);
    expect(await page.locator('[data-usage-chart="tokens"]').getAttribute('data-lines')).toBe('3');
  }, 300_000);

  it('grows live with the second replies; meters and the rail meter carry ps contextPct', async () => {
    await replyEach(1);
    const rows = await rowsAfter({ [LEAD]: 733 + 420, [PI]: 555 + 300, [CODER]: 321 + 222 });
    for (const s of SEATS) {
      const r = rows[s.seat]!;
      const total = r.tokensIn! + r.tokensOut!;
      await legend(s.seat)
        .and(page.locator(`[data-tokens="${total}"]`))
        .waitFor({ timeout: 30_000 });
      expect(r.contextPct, `${s.seat} has a context share`).toBeGreaterThan(0);
      const meter = page.locator(`[data-usage-meter="${s.seat}"]`);
      await meter.and(page.locator(`[data-pct="${r.contextPct}"]`)).waitFor({ timeout: 30_000 });
      const rail = page.locator(`[data-context="${s.seat}"]`);
      await rail.and(page.locator(`[data-pct="${r.contextPct}"]`)).waitFor({ timeout: 30_000 });
      expect(await rail.getAttribute('title')).toContain(`${r.contextPct}%`);
    }
    // Codex's plan windows, per account, with their reset times.
    const primary = page.locator('[data-usage-limit="codex:primary"]');
    await primary.waitFor({ timeout: 30_000 });
    expect(await primary.textContent()).toContain('42% used');
    expect(await primary.textContent()).toMatch(/resets .*\(in \d+ d\)/);
    expect(await page.locator('[data-usage-limit="codex:secondary"]').textContent()).toContain('7% used');
    // The chart spans the range's start, every sample minute and now.
    expect(Number(await page.locator('[data-usage-chart]').getAttribute('data-times'))).toBeGreaterThanOrEqual(3);
  }, 300_000);

  it('switches to the cost estimate with its price source, and to a line per pod', async () => {
    const rows = Object.fromEntries((await j.rows()).map((r) => [r.seat, r]));
    await page.locator(`[data-usage-view="${RIG}"]`).focus();
    await page.keyboard.press('c');
    await page.locator('[data-usage-chart="cost"]').waitFor();
    expect(await page.locator('[data-usage-measure="cost"]').getAttribute('aria-pressed')).toBe('true');
    for (const s of SEATS) {
      expect(rows[s.seat]!.costUsd, `${s.seat} priced`).toBeGreaterThan(0);
      await expect
        .poll(async () => Number(await legend(s.seat).getAttribute('data-cost')))
        .toBeCloseTo(rows[s.seat]!.costUsd!, 6);
    }
    const basis = await page.locator('[data-usage-basis]').textContent();
    expect(basis).toContain('estimate');
    expect(basis).toMatch(/@pydantic\/genai-prices \d+\.\d+\.\d+/);
    expect(await legend(LEAD).textContent()).toContain('from catalog');
    expect(await legend(PI).textContent()).toContain('from settings');
    mkdirSync(SHOTS, { recursive: true });
    await page.keyboard.press('t');
    await page.locator('[data-usage-chart="tokens"]').waitFor();
    await page.screenshot({ path: join(SHOTS, 'usage-1280x800.png') });
    await page.setViewportSize({ width: 1920, height: 1080 });
    await page.waitForTimeout(300);
    await page.screenshot({ path: join(SHOTS, 'usage-1920x1080.png') });

    await page.keyboard.press('p');
    // A pod's line adds up its seats'.
    for (const pod of ['plan', 'build']) {
      const spent = SEATS.filter((s) => s.pod === pod).reduce(
        (a, s) => a + rows[s.seat]!.tokensIn! + rows[s.seat]!.tokensOut!,
        0,
      );
      await legend(`${pod}@${RIG}`)
        .and(page.locator(`[data-tokens="${spent}"]`))
        .waitFor({ timeout: 10_000 });
    }
    expect(await page.locator('[data-usage-series]').count()).toBe(2);
    await page.keyboard.press('s');
    await legend(LEAD).waitFor();
  }, 120_000);

  it('U on a rail row opens its rig’s Usage view from another view', async () => {
    await page.locator('[data-view-tab="grid"]').click();
    await page.locator(`[data-seat-row="${PI}"]`).focus();
    await page.keyboard.press('u');
    await page.locator(`[data-usage-view="${RIG}"]`).waitFor({ timeout: 10_000 });
    expect(await page.locator('[data-view-tab="usage"]').getAttribute('aria-selected')).toBe('true');
    expect(errors).toEqual([]);
  });
});
