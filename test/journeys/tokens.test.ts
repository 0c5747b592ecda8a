/**
 * Acceptance: each seat's tokens and context, from its runtime's own records. A rig of the real
 * Claude Code, Codex and Pi (offline against the fake model server, which reports the token
 * figures each prompt names with `USAGE:`), each answering one prompt sent through `rigdesk send`:
 * `rigdesk ps --json` shows exactly the figures the server reported, in the contract's shape, and
 * the window's rail (real Chromium over `rigdesk serve`) shows them, with the Codex seat past 85 %
 * of its window marked in words. Claude Code records no window, so its seat's share is of the
 * window the model catalog gives its model.
 */
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ActivityMonitor } from '../../src/main/engine/activity/monitor';
import { claudeCode, codex, pi } from '../../src/main/engine/runtimes';
import { PushHub } from '../../src/main/window-hub/pushes';
import { startServe, type ServeHandle } from '../../src/server/serve';
import type { FakeModelServer } from '../agents/fake-model-server';
import { chromiumMissing, launchChromium } from '../app/chromium';
import { RENDERER_DIR, strictUrl } from '../app/helpers';
import { expectAnswer } from '../contract/support';
import { REPO } from '../support/rig';
import { waitFor } from '../support/tmux';
import { expectOnlyLoopback, JourneyWorld, requireCli, startServer, waitForReplyInTranscript } from './support';

const missing = chromiumMissing();
const SHOTS = join(REPO, '.tmp', 'window');
const ADAPTER = { 'claude-code': claudeCode, codex, pi } as const;

/** Figures the fake server reports for each seat's prompt: `USAGE:<in>:<out>:<cacheRead>:<cacheWrite>`. */
const SEATS = [
  {
    seat: 'lead@tok',
    member: 'lead',
    runtime: 'claude-code',
    usage: 'USAGE:61001:733:4100:1300',
    // Anthropic reports cache reads and writes beside input_tokens: all three are input. Claude
    // records no window; the model catalog's (a million tokens for the fixture's model) gives 6.7 %.
    want: { tokensIn: 61001 + 4100 + 1300, tokensOut: 733, contextPct: 6.7 },
  },
  {
    seat: 'coder@tok',
    member: 'coder',
    runtime: 'codex',
    usage: 'USAGE:225000:321:12000:0',
    // Cached input is inside input_tokens; (225000 + 321) of the 258400 Codex records: past 85 %.
    want: { tokensIn: 225000, tokensOut: 321, contextPct: 87.2 },
  },
  {
    seat: 'pi@tok',
    member: 'pi',
    runtime: 'pi',
    usage: 'USAGE:70001:555:2000:0',
    // (70001 + 555) of the 128000 the fixture's models.json declares for fake-model.
    want: { tokensIn: 70001, tokensOut: 555, contextPct: 55.1 },
  },
] as const;

describe.skipIf(!!missing)(
  'acceptance: tokens and context per seat (Claude Code, Codex, Pi), in ps and the rail',
  () => {
    const installed = requireCli('claude-code', 'codex', 'pi');
    let server: FakeModelServer;
    let j: JourneyWorld;
    let serve: ServeHandle | undefined;
    let monitor: ActivityMonitor | undefined;
    let chrome: Awaited<ReturnType<typeof launchChromium>> | undefined;

    beforeAll(async () => {
      const s = await startServer();
      server = s.server;
      j = new JourneyWorld(server, s.closed, ['claude-code', 'codex', 'pi']);
    });
    afterAll(async () => {
      await chrome?.close();
      monitor?.stop();
      await serve?.close();
      await j?.cleanup();
      await server?.close();
      if (server && installed()) expectOnlyLoopback(server);
    }, 60_000);

    it('after one reply each, rigdesk ps --json shows exactly the figures the fake server reported', async () => {
      await j.up(
        'tok',
        SEATS.map((s) => ({ id: s.member, runtime: s.runtime })),
      );
      const conv: Record<string, string> = {};
      for (const s of SEATS)
        conv[s.seat] = (await j.seen(s.seat, { activity: 'idle', named: true })).row.conversationId!;
      const before = await j.rows();
      expect(before.map((r) => Object.keys(r).filter((k) => k.startsWith('token') || k === 'contextPct'))).toEqual([
        [],
        [],
        [],
      ]);

      for (const s of SEATS) {
        const sent = await j.cli(['send', s.seat, `tally ${s.usage}`, '--verify', '--json']);
        expect(sent.json, `${s.seat}: ${sent.stdout}${sent.stderr}`).toMatchObject({
          ok: true,
          sent: { verified: true },
        });
      }
      for (const s of SEATS)
        await waitForReplyInTranscript(ADAPTER[s.runtime], j.homeOf(s.runtime), j.dir(), conv[s.seat]!, `ACK tally`);

      // What the server says it reported, to each CLI, for these prompts.
      for (const s of SEATS) {
        const [input, output, cacheRead, cacheWrite] = s.usage.split(':').slice(1).map(Number);
        expect(server.requests.map((r) => r.usage)).toContainEqual({ input, output, cacheRead, cacheWrite });
      }
      const rows = await waitFor(
        async () => {
          const ps = await j.cli(['ps', '--json']);
          const all = SEATS.map((s) => ps.json?.seats?.find((r: { seat: string }) => r.seat === s.seat));
          return all.every((r) => r?.tokensOut !== undefined) ? ps : undefined;
        },
        { timeoutMs: 30_000, intervalMs: 250, what: 'every seat with its tokens in rigdesk ps' },
      );
      expectAnswer('ps', rows.json);
      for (const s of SEATS) {
        const r = rows.json.seats.find((x: { seat: string }) => x.seat === s.seat);
        expect({ tokensIn: r.tokensIn, tokensOut: r.tokensOut, contextPct: r.contextPct }, s.seat).toEqual({
          ...s.want,
        });
      }

      const text = (await j.cli(['ps'])).stdout.split('\n');
      expect(text.find((l) => l.startsWith('coder@tok'))).toMatch(/\s87\.2% high\s+225k\/321\s/);
      expect(text.find((l) => l.startsWith('lead@tok'))).toMatch(/\s6\.7%\s+66k\/733\s/);
      expect(text.find((l) => l.startsWith('pi@tok'))).toMatch(/\s55\.1%\s+70k\/555\s/);
    }, 240_000);

    it("the rail shows each seat's context and tokens (data-context-pct where known), the Codex seat past 85 % marked in words", async () => {
      const engine = j.w.engine();
      monitor = new ActivityMonitor(engine.ports);
      await monitor.start();
      serve = await startServe({
        engine,
        port: 0,
        staticDir: RENDERER_DIR,
        pushes: new PushHub(engine, { activityEvents: true }),
      });
      chrome = await launchChromium({ width: 1400, height: 900 });
      const page: Page = chrome.browser.pages()[0] ?? (await chrome.browser.newPage());
      const errors: string[] = [];
      page.on('pageerror', (e) => errors.push(String(e)));
      await page.goto(strictUrl(serve));
      const row = (seat: string) => page.locator(`[data-seat-row="${seat}"]`);

      const coder = row('coder@tok');
      await coder.and(page.locator('[data-context-pct="87.2"]')).waitFor({ timeout: 30_000 });
      expect(await coder.getAttribute('data-tokens-in')).toBe('225000');
      expect(await coder.getAttribute('data-tokens-out')).toBe('321');
      await expect.poll(() => coder.innerText()).toMatch(/context 87%\s+nearly full\s*·?\s*225k in · 321 out/);
      expect(await coder.getAttribute('aria-label')).toContain('context 87% nearly full');

      const pirow = row('pi@tok');
      await pirow.and(page.locator('[data-context-pct="55.1"]')).waitFor({ timeout: 30_000 });
      expect(await pirow.innerText()).toMatch(/context 55%/);
      expect(await pirow.innerText()).not.toContain('nearly full');

      const lead = row('lead@tok');
      await lead.and(page.locator('[data-tokens-in="66401"]')).waitFor({ timeout: 30_000 });
      expect(await lead.getAttribute('data-context-pct'), "the catalog's window for Claude's model").toBe('6.7');
      expect(await lead.innerText()).toContain('66k in · 733 out');
      expect(await lead.locator('.tokens').getAttribute('title')).toBe('66,401 tokens in, 733 out');

      // Where the screenshot goes (ignored by git): open it and look.
      mkdirSync(SHOTS, { recursive: true });
      await page.screenshot({ path: join(SHOTS, 'tokens-rail.png') });
      expect(errors).toEqual([]);
    }, 180_000);
  },
);
