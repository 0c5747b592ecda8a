/**
 * Acceptance: a seat's usage after two replies, as `rigdesk ps --json` shows it. The real Claude
 * Code, Codex and Pi run offline against the fake model server, which reports exactly the token figures
 * each prompt names (`USAGE:<in>:<out>:<cacheRead>:<cacheWrite>`) and, for Codex, a plan's
 * rate-limit windows (`RATELIMIT:`). ps must show the sums the server reported, the last call as
 * the context, the window with where it came from, and a cost estimate with its source:
 * - Claude Code names a model the pinned catalog knows: window and prices from the catalog. The
 *   expected cost is the catalog library's own price for the summed tokens, not Rigdesk's sum.
 * - Codex runs `fake-model`, which no catalog knows: the window is the one its rollout records, the
 *   cost is absent with why until the person's settings name a price, then it is the settings'.
 * - Pi runs `fake/fake-model` with the window its models.json declares (records); priced as Codex.
 * - Codex's rate-limit windows show per account (its CLI home), with their reset times.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { calcPrice } from '@pydantic/genai-prices';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { claudeCode, codex, pi, qwen as qwenAdapter } from '../../src/main/engine/runtimes';
import { liveEvidenceIO } from '../../src/main/engine/evidence-io';
import type { PsRow } from '../../src/shared/contract';
import type { FakeModelServer } from '../agents/fake-model-server';
import { waitFor } from '../support/tmux';
import { expectOnlyLoopback, JourneyWorld, requireCli, startServer, waitForReplyInTranscript } from './support';
import { CATALOG, type Figures, f, sum, usageWord } from './usage-figures';

const ADAPTER = { 'claude-code': claudeCode, codex, pi } as const;
const RUNTIMES = ['claude-code', 'codex', 'pi'] as const;
const RESET_PRIMARY = 1_893_456_000; // epoch seconds, a fixed future moment
const RESET_SECONDARY = 1_894_060_800;

/** Two replies each; Anthropic's input excludes its cached kinds, OpenAI's includes the cached reads. */
const CLAUDE = [f(61001, 733, 4100, 1300), f(30002, 420, 65000, 900)];
const CODEX = [f(100000, 321, 12000, 0), f(150000, 222, 90000, 0)];
const PI = [f(70001, 555, 2000, 0), f(40000, 300, 30000, 0)];

/** The model Claude Code's transcript names for its replies (what the catalog is asked about). */
function claudeModel(home: string, cwd: string, id: string): string {
  const path = claudeCode.transcriptPath!(home, cwd, id, liveEvidenceIO)!;
  const models = readFileSync(path, 'utf8')
    .split('\n')
    .filter((l) => l.includes('"assistant"'))
    .map((l) => (JSON.parse(l) as { message?: { model?: string } }).message?.model)
    .filter((m): m is string => !!m && m !== '<synthetic>');
  return models.at(-1)!;
}

describe('acceptance: context, tokens, cost and limits per seat after two replies (Claude Code, Codex, Pi)', () => {
  const installed = requireCli('claude-code', 'codex', 'pi');
  let server: FakeModelServer;
  let j: JourneyWorld;

  beforeAll(async () => {
    const s = await startServer();
    server = s.server;
    j = new JourneyWorld(server, s.closed, ['claude-code', 'codex', 'pi']);
  });
  afterAll(async () => {
    await j?.cleanup();
    await server?.close();
    if (server && installed()) expectOnlyLoopback(server);
  }, 60_000);

  it('ps shows the reported sums, the last call as context, its window and cost with their sources, and the plan limits', async () => {
    await j.up('use', [
      { id: 'lead', runtime: 'claude-code' },
      { id: 'coder', runtime: 'codex' },
      { id: 'pi', runtime: 'pi' },
    ]);
    const seats = { 'claude-code': 'lead@use', codex: 'coder@use', pi: 'pi@use' } as const;
    const conv: Record<string, string> = {};
    for (const s of Object.values(seats))
      conv[s] = (await j.seen(s, { activity: 'idle', named: true })).row.conversationId!;

    const limits = `RATELIMIT:42:300:${RESET_PRIMARY}:7:10080:${RESET_SECONDARY}`;
    const prompts: Record<(typeof RUNTIMES)[number], [string, string]> = {
      'claude-code': [`tally ${usageWord(CLAUDE[0]!)}`, `again ${usageWord(CLAUDE[1]!)}`],
      codex: [`tally ${usageWord(CODEX[0]!)}`, `again ${usageWord(CODEX[1]!)} ${limits}`],
      pi: [`tally ${usageWord(PI[0]!)}`, `again ${usageWord(PI[1]!)}`],
    };
    for (const n of [0, 1] as const) {
      for (const rt of RUNTIMES) {
        const sent = await j.cli(['send', seats[rt], prompts[rt][n], '--verify', '--json']);
        expect(sent.json, `${seats[rt]}: ${sent.stdout}${sent.stderr}`).toMatchObject({ ok: true });
      }
      for (const rt of RUNTIMES)
        await waitForReplyInTranscript(
          ADAPTER[rt],
          j.homeOf(rt),
          j.dir(),
          conv[seats[rt]]!,
          `ACK ${n === 0 ? 'tally' : 'again'}`,
        );
      // The next prompt only once this turn is over: a queued send would be typed mid-turn.
      for (const s of Object.values(seats)) await j.seen(s, { activity: 'idle' });
    }

    const want = {
      lead: {
        tokensIn: sum(CLAUDE, 'input') + sum(CLAUDE, 'cacheRead') + sum(CLAUDE, 'cacheWrite'),
        tokensOut: sum(CLAUDE, 'output'),
        contextTokens: 30002 + 65000 + 900 + 420,
      },
      coder: { tokensIn: sum(CODEX, 'input'), tokensOut: sum(CODEX, 'output'), contextTokens: 150000 + 222 },
      // Pi, on the fake server's Chat Completions: cached reads inside the prompt tokens, as OpenAI.
      pi: { tokensIn: sum(PI, 'input'), tokensOut: sum(PI, 'output'), contextTokens: 40000 + 300 },
    };
    const rowsWhen = (ok: (r: Record<string, PsRow>) => boolean, what: string) =>
      waitFor(
        async () => {
          const rows = await j.rows();
          const by = {
            lead: rows.find((r) => r.seat === seats['claude-code'])!,
            coder: rows.find((r) => r.seat === seats.codex)!,
            pi: rows.find((r) => r.seat === seats.pi)!,
          };
          return ok(by) ? by : undefined;
        },
        { timeoutMs: 30_000, intervalMs: 250, what },
      );
    const rows = await rowsWhen(
      (r) =>
        r.lead?.tokensOut === want.lead.tokensOut &&
        r.coder?.tokensOut === want.coder.tokensOut &&
        r.pi?.tokensOut === want.pi.tokensOut,
      'every seat with its two replies in rigdesk ps',
    );

    // Claude Code: the catalog's window and prices for the model its records name.
    const model = claudeModel(j.homeOf('claude-code'), j.dir(), conv[seats['claude-code']]!);
    const ref = calcPrice(
      {
        input_tokens: want.lead.tokensIn,
        cache_read_tokens: sum(CLAUDE, 'cacheRead'),
        cache_write_tokens: sum(CLAUDE, 'cacheWrite'),
        output_tokens: want.lead.tokensOut,
      },
      model,
    );
    expect(ref, `${model} is in the catalog`).toBeTruthy();
    const window = ref!.model.context_window!;
    expect(rows.lead).toMatchObject({
      ...want.lead,
      contextWindow: window,
      contextSource: 'catalog',
      contextPct: Math.round((want.lead.contextTokens / window) * 1000) / 10,
      costSource: 'catalog',
      costBasis: `${model}: ${CATALOG} (anthropic/${ref!.model.id})`,
    });
    expect(rows.lead.costUsd).toBeCloseTo(ref!.total_price, 6);

    // Codex on fake-model: the window its rollout records; no price anywhere, so no cost, and why.
    expect(rows.coder).toMatchObject({
      ...want.coder,
      contextWindow: 258_400,
      contextSource: 'records',
      contextPct: Math.round((want.coder.contextTokens / 258_400) * 1000) / 10,
    });
    expect(rows.coder.costUsd).toBeUndefined();
    expect(rows.coder.costWhy).toBe(`fake-model is not in ${CATALOG}, and the settings name no price for it`);
    const account = j.homeOf('codex');
    expect(rows.coder.limits).toEqual([
      {
        runtime: 'codex',
        account,
        limitId: 'codex',
        window: 'primary',
        usedPercent: 42,
        windowMinutes: 300,
        resetsAt: RESET_PRIMARY * 1000,
      },
      {
        runtime: 'codex',
        account,
        limitId: 'codex',
        window: 'secondary',
        usedPercent: 7,
        windowMinutes: 10080,
        resetsAt: RESET_SECONDARY * 1000,
      },
    ]);
    expect(rows.lead.limits).toBeUndefined();

    // Pi: the window its models.json declares for fake/fake-model; no price, and why.
    expect(rows.pi).toMatchObject({
      ...want.pi,
      contextWindow: 128_000,
      contextSource: 'records',
      contextPct: Math.round((want.pi.contextTokens / 128_000) * 1000) / 10,
    });
    expect(rows.pi.costUsd).toBeUndefined();
    expect(rows.pi.costWhy).toBe(`fake/fake-model is not in ${CATALOG}, and the settings name no price for it`);

    // The person names a price for fake-model: the estimate appears, from the settings.
    writeFileSync(
      join(j.w.home, 'settings'),
      'models:\n  fake-model:\n    usd_per_mtok: { input: 2, cache_read: 0.5, output: 8 }\n',
    );
    const priced = await rowsWhen(
      (r) => r.coder?.costUsd !== undefined && r.pi?.costUsd !== undefined,
      'the Codex and Pi seats priced from the settings',
    );
    const fresh = sum(CODEX, 'input') - sum(CODEX, 'cacheRead');
    expect(priced.coder.costUsd).toBeCloseTo(
      (fresh * 2 + sum(CODEX, 'cacheRead') * 0.5 + want.coder.tokensOut * 8) / 1e6,
      6,
    );
    expect(priced.coder).toMatchObject({ costSource: 'settings', costBasis: 'fake-model: settings' });
    const piFresh = sum(PI, 'input') - sum(PI, 'cacheRead');
    expect(priced.pi.costUsd).toBeCloseTo((piFresh * 2 + sum(PI, 'cacheRead') * 0.5 + want.pi.tokensOut * 8) / 1e6, 6);
    expect(priced.pi).toMatchObject({ costSource: 'settings', costBasis: 'fake/fake-model: settings' });
    // The catalog still prices what it knows: the settings fill gaps, never replace it.
    expect(priced.lead.costSource).toBe('catalog');

    // rigdesk usage: the engine's samples add up to exactly the seats' figures, per pod and per seat.
    const byPod = await j.cli(['usage', '--by', 'pod', '--json']);
    expect(byPod.json, byPod.stdout + byPod.stderr).toMatchObject({ ok: true, by: 'pod' });
    expect(byPod.json.rows).toHaveLength(1);
    expect(byPod.json.rows[0]).toMatchObject({
      key: 'team@use',
      seats: 3,
      conversations: 3,
      tokensIn: want.lead.tokensIn + want.coder.tokensIn + want.pi.tokensIn,
      tokensOut: want.lead.tokensOut + want.coder.tokensOut + want.pi.tokensOut,
    });
    expect(byPod.json.rows[0].costUsd).toBeCloseTo(
      priced.lead.costUsd! + priced.coder.costUsd! + priced.pi.costUsd!,
      6,
    );
    expect(byPod.json.rows[0].costPartial).toBeUndefined();
    expect(byPod.json.basis.catalog).toEqual({ name: '@pydantic/genai-prices', version: '0.1.8' });
    expect(byPod.json.limits).toHaveLength(2);
    const bySeat = await j.cli(['usage', '--by', 'seat', '--json']);
    expect(bySeat.json.rows.map((r: { key: string; tokensIn: number }) => [r.key, r.tokensIn]).sort()).toEqual(
      [
        [seats['claude-code'], want.lead.tokensIn],
        [seats.codex, want.coder.tokensIn],
        [seats.pi, want.pi.tokensIn],
      ].sort(),
    );
    expect((await j.cli(['usage'])).stdout).toMatch(/COST \(EST\.\)/);

    const text = (await j.cli(['ps'])).stdout;
    expect(text).toMatch(/COST is an estimate from the tokens by kind and model prices/);
  }, 300_000);
});

describe("acceptance: a model only the person's settings know (Qwen Code on fake-model)", () => {
  const installed = requireCli('qwen');
  let server: FakeModelServer;
  let j: JourneyWorld;
  let proxy: { close(): Promise<void> } | undefined;
  beforeAll(async () => {
    const s = await startServer();
    server = s.server;
    j = new JourneyWorld(server, s.closed, ['qwen']);
    // Qwen Code ignores NO_PROXY: its fixture's local proxy carries its model calls to the server.
    proxy = await j.fx.qwen!.startProxy();
  });
  afterAll(async () => {
    await j?.cleanup();
    await proxy?.close();
    await server?.close();
    if (server && installed()) expectOnlyLoopback(server);
  }, 60_000);

  it('the window and the cost come from the settings, and say so', async () => {
    await j.up('qw', [{ id: 'qw', runtime: 'qwen' }]);
    writeFileSync(
      join(j.w.home, 'settings'),
      'models:\n  fake-model:\n    window: 64000\n    usd_per_mtok: { input: 1, cache_read: 0.25, output: 4 }\n',
    );
    const seat = 'qw@qw';
    const conv = (await j.seen(seat, { activity: 'idle', named: true })).row.conversationId!;
    const QWEN = [f(20001, 111, 700, 0), f(30000, 200, 10000, 0)];
    for (const [n, word] of ['tally', 'again'].entries()) {
      const sent = await j.cli(['send', seat, `${word} ${usageWord(QWEN[n]!)}`, '--verify', '--json']);
      expect(sent.json, sent.stdout + sent.stderr).toMatchObject({ ok: true });
      await waitForReplyInTranscript(qwenAdapter, j.homeOf('qwen'), j.dir(), conv, `ACK ${word}`);
      await j.seen(seat, { activity: 'idle' });
    }
    const want = { tokensIn: sum(QWEN, 'input'), tokensOut: sum(QWEN, 'output'), contextTokens: 30000 + 200 };
    const row = await waitFor(
      async () => (await j.rows()).find((r) => r.seat === seat && r.tokensOut === want.tokensOut),
      { timeoutMs: 30_000, intervalMs: 250, what: 'the Qwen seat with its two replies' },
    );
    expect(row).toMatchObject({
      ...want,
      contextWindow: 64_000,
      contextSource: 'settings',
      contextPct: Math.round((want.contextTokens / 64_000) * 1000) / 10,
      costSource: 'settings',
      costBasis: 'fake-model: settings',
    });
    const fresh = sum(QWEN, 'input') - sum(QWEN, 'cacheRead');
    expect(row.costUsd).toBeCloseTo((fresh * 1 + sum(QWEN, 'cacheRead') * 0.25 + want.tokensOut * 4) / 1e6, 6);
  }, 240_000);
});
