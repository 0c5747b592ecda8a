/**
 * Acceptance (issue 36), the runtimes usage.test.ts leaves out: a seat's usage after two replies, as
 * `rigdesk ps --json` shows it, for OpenCode, Gemini CLI, omp and omo, each the real CLI offline
 * against the fake model server, which reports exactly the token figures each prompt names
 * (`USAGE:<in>:<out>:<cacheRead>:<cacheWrite>`, in the wire format the CLI speaks). ps must show the
 * sums the server reported, the last call as the context, the window with where it came from, and a
 * cost estimate with its source, or each absent with why:
 * - OpenCode and omo (OpenCode with oh-my-opencode; Chat Completions) record their calls in
 *   opencode.db, with no window, on `fake/fake-model`, which no catalog knows: window and cost are
 *   absent with why until the person's settings name them, then both are the settings'.
 * - Gemini CLI (the Gemini API) records its replies' tokens in its session file, with no window, on
 *   `gemini-2.5-flash`, which the pinned catalog knows: window and prices from the catalog.
 * - omp (Chat Completions) records its calls as Pi does, on `fake/fake-model` with the window its
 *   models.yml declares (records); the cost as OpenCode's.
 * OpenCode, omo and omp also ask the model for a title with the first prompt in it, so the server
 * reports that prompt's figures twice; the title is no call of the conversation (none of their
 * records hold it), and the sums here hold the two replies only, so a reader that counted it fails.
 */
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { calcPrice } from '@pydantic/genai-prices';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { gemini, omp } from '../../src/main/engine/runtimes';
import type { PsRow } from '../../src/shared/contract';
import type { FakeModelServer } from '../agents/fake-model-server';
import { waitFor } from '../support/tmux';
import {
  type AgentRuntime,
  expectOnlyLoopback,
  JourneyWorld,
  requireCli,
  startServer,
  waitForReplyInTranscript,
} from './support';
import { CATALOG, type Figures, f, sum, usageWord } from './usage-figures';

const pct = (tokens: number, window: number) => Math.round((tokens / window) * 1000) / 10;

/**
 * What every API here reports: the cached reads inside the prompt's tokens (OpenAI's
 * `prompt_tokens`, Gemini's `promptTokenCount`), so the seat's tokens in are the reported inputs,
 * and its context the last call's input and output.
 */
const expected = (xs: Figures[]) => ({
  tokensIn: sum(xs, 'input'),
  tokensOut: sum(xs, 'output'),
  contextTokens: xs.at(-1)!.input + xs.at(-1)!.output,
});
/** The estimate from the settings' prices below, per million tokens: fresh input, cached reads, output. */
const settingsCost = (xs: Figures[], p: { input: number; cacheRead: number; output: number }) =>
  ((sum(xs, 'input') - sum(xs, 'cacheRead')) * p.input +
    sum(xs, 'cacheRead') * p.cacheRead +
    sum(xs, 'output') * p.output) /
  1e6;

interface Journey {
  runtime: AgentRuntime;
  seat: string;
  /** The CLIs it needs (omo's seat runs OpenCode). */
  clis: AgentRuntime[];
  /** Whether ps names the conversation before the first send (OpenCode's is known only once it writes one). */
  namedAtLaunch: boolean;
  /** Waits for the reply in the conversation's own records. */
  replied(j: JourneyWorld, conversationId: string, text: string): Promise<unknown>;
}

/**
 * One seat of `journey.runtime` answers two prompts sent through `rigdesk send`, each turn over
 * before the next is sent; then `rowWhen` polls `rigdesk ps --json` for the seat's row.
 */
function usageJourney(journey: Journey, figures: [Figures, Figures], check: (ctx: Ctx) => Promise<void>): void {
  const installed = requireCli(...journey.clis);
  let server: FakeModelServer;
  let j: JourneyWorld;

  beforeAll(async () => {
    const s = await startServer();
    server = s.server;
    j = new JourneyWorld(server, s.closed, [journey.runtime]);
  });
  afterAll(async () => {
    await j?.cleanup();
    await server?.close();
    if (server && installed()) expectOnlyLoopback(server);
  }, 60_000);

  it(`ps shows the reported sums, the last call as context, and the window and cost with their sources (or why not)`, async () => {
    const [rig] = journey.seat.split('@').reverse();
    const [id] = journey.seat.split('@');
    await j.up(rig!, [{ id: id!, runtime: journey.runtime }]);
    let conv = journey.namedAtLaunch
      ? (await j.seen(journey.seat, { activity: 'idle', named: true }, Date.now(), 90_000)).row.conversationId!
      : (await j.seen(journey.seat, { activity: 'idle' }, Date.now(), 90_000)).row.conversationId;
    // A fresh TUI draws its box a moment before it reads keys: let it settle before the first paste.
    await new Promise((r) => setTimeout(r, 2000));
    for (const [n, word] of ['tally', 'again'].entries()) {
      const sent = await j.cli(['send', journey.seat, `${word} ${usageWord(figures[n]!)}`, '--verify', '--json']);
      expect(sent.json, `${sent.stdout}${sent.stderr}\n${j.screen(journey.seat)}`).toMatchObject({ ok: true });
      if (!conv) conv = (await j.seen(journey.seat, { activity: 'idle', named: true })).row.conversationId!;
      await journey.replied(j, conv, `ACK ${word}`);
      // The next prompt only once this turn is over: a queued send would be typed mid-turn.
      await j.seen(journey.seat, { activity: 'idle' });
    }
    const rowWhen = (ok: (r: PsRow) => boolean, what: string) =>
      waitFor(
        async () => {
          const r = (await j.rows()).find((x) => x.seat === journey.seat);
          return r && ok(r) ? r : undefined;
        },
        { timeoutMs: 30_000, intervalMs: 250, what },
      ).catch(async (e: Error) => {
        const last = (await j.rows()).find((x) => x.seat === journey.seat);
        throw new Error(
          `${e.message}; last row: ${JSON.stringify(last)}; the server reported: ${JSON.stringify(server.requests.map((q) => q.usage).filter(Boolean))}`,
        );
      });
    const tokensOut = sum(figures, 'output');
    const row = await rowWhen((r) => r.tokensOut === tokensOut, `${journey.seat} with its two replies in rigdesk ps`);
    await check({ j, row, rowWhen });
  }, 300_000);
}

interface Ctx {
  j: JourneyWorld;
  row: PsRow;
  rowWhen: (ok: (r: PsRow) => boolean, what: string) => Promise<PsRow>;
}

/** The person's settings: a window and prices for fake-model (any provider's). */
const SETTINGS_PRICE = { input: 2, cacheRead: 0.5, output: 8 };
const SETTINGS_WINDOW = 96_000;
function nameFakeModel(j: JourneyWorld): void {
  writeFileSync(
    join(j.w.home, 'settings'),
    `models:\n  fake-model:\n    window: ${SETTINGS_WINDOW}\n    usd_per_mtok: { input: ${SETTINGS_PRICE.input}, cache_read: ${SETTINGS_PRICE.cacheRead}, output: ${SETTINGS_PRICE.output} }\n`,
  );
}

/**
 * OpenCode and omo on fake/fake-model: no window in opencode.db and none in the catalog, so the
 * window and the cost are absent, each with why; once the settings name them, both are the settings'.
 */
async function recordsWithoutWindowOrPrice({ j, row, rowWhen }: Ctx, figures: Figures[]): Promise<void> {
  const want = expected(figures);
  expect(row).toMatchObject(want);
  expect(row.contextWindow).toBeUndefined();
  expect(row.contextSource).toBeUndefined();
  expect(row.contextPct).toBeUndefined();
  expect(row.contextWhy).toBe(`fake/fake-model is not in ${CATALOG}, and the settings name no window for it`);
  expect(row.costUsd).toBeUndefined();
  expect(row.costWhy).toBe(`fake/fake-model is not in ${CATALOG}, and the settings name no price for it`);

  nameFakeModel(j);
  const priced = await rowWhen((r) => r.costUsd !== undefined, 'the seat priced from the settings');
  expect(priced).toMatchObject({
    ...want,
    contextWindow: SETTINGS_WINDOW,
    contextSource: 'settings',
    contextPct: pct(want.contextTokens, SETTINGS_WINDOW),
    costSource: 'settings',
    costBasis: 'fake/fake-model: settings',
  });
  expect(priced.contextWhy).toBeUndefined();
  expect(priced.costWhy).toBeUndefined();
  expect(priced.costUsd).toBeCloseTo(settingsCost(figures, SETTINGS_PRICE), 6);
}

const OPENCODE = [f(50001, 411, 3000, 0), f(62000, 250, 40000, 0)] as [Figures, Figures];
const OMO = [f(45001, 377, 1500, 0), f(58000, 199, 30000, 0)] as [Figures, Figures];
const GEMINI = [f(80001, 612, 5000, 0), f(91000, 333, 60000, 0)] as [Figures, Figures];
const OMP = [f(66001, 444, 2500, 0), f(41000, 222, 20000, 0)] as [Figures, Figures];

/** OpenCode's conversation is a session in its database: the reply is one of its parts. */
const inOpencodeDb = (rt: 'opencode' | 'omo') => (j: JourneyWorld, conv: string, text: string) =>
  waitFor(() => j.fx[rt]!.sessionText(conv).includes(text), { timeoutMs: 45_000, what: `"${text}" in ${conv}` });

describe('acceptance: usage after two replies (OpenCode)', () => {
  usageJourney(
    {
      runtime: 'opencode',
      seat: 'oc@ocu',
      clis: ['opencode'],
      namedAtLaunch: false,
      replied: inOpencodeDb('opencode'),
    },
    OPENCODE,
    (ctx) => recordsWithoutWindowOrPrice(ctx, OPENCODE),
  );
});

describe('acceptance: usage after two replies (omo, OpenCode with oh-my-opencode)', () => {
  usageJourney(
    { runtime: 'omo', seat: 'oo@omu', clis: ['omo', 'opencode'], namedAtLaunch: false, replied: inOpencodeDb('omo') },
    OMO,
    (ctx) => recordsWithoutWindowOrPrice(ctx, OMO),
  );
});

describe('acceptance: usage after two replies (Gemini CLI)', () => {
  usageJourney(
    {
      runtime: 'gemini',
      seat: 'gm@gmu',
      clis: ['gemini'],
      namedAtLaunch: true,
      replied: (j, conv, text) => waitForReplyInTranscript(gemini, j.homeOf('gemini'), j.dir(), conv, text),
    },
    GEMINI,
    async ({ j, row, rowWhen }) => {
      const want = expected(GEMINI);
      // The catalog's window and prices for the model the fixture names (and Gemini records).
      const ref = calcPrice(
        { input_tokens: want.tokensIn, cache_read_tokens: sum(GEMINI, 'cacheRead'), output_tokens: want.tokensOut },
        'gemini-2.5-flash',
      );
      expect(ref, 'gemini-2.5-flash is in the catalog').toBeTruthy();
      const window = ref!.model.context_window!;
      expect(row).toMatchObject({
        ...want,
        contextWindow: window,
        contextSource: 'catalog',
        contextPct: pct(want.contextTokens, window),
        costSource: 'catalog',
        costBasis: `gemini-2.5-flash: ${CATALOG} (google/${ref!.model.id})`,
      });
      expect(row.costUsd).toBeCloseTo(ref!.total_price, 6);
      expect(row.costWhy).toBeUndefined();
      // The settings fill gaps, never replace the catalog: a window and a price for this model change
      // nothing (each `rigdesk ps` reads the settings afresh).
      writeFileSync(
        join(j.w.home, 'settings'),
        'models:\n  gemini-2.5-flash:\n    window: 1000\n    usd_per_mtok: { input: 100, output: 100 }\n',
      );
      const again = await rowWhen((r) => r.tokensOut === want.tokensOut, 'the Gemini seat again');
      expect(again).toMatchObject({ contextWindow: window, contextSource: 'catalog', costSource: 'catalog' });
      expect(again.costUsd).toBeCloseTo(ref!.total_price, 6);
    },
  );
});

describe('acceptance: usage after two replies (omp)', () => {
  usageJourney(
    {
      runtime: 'omp',
      seat: 'om@ompu',
      clis: ['omp'],
      namedAtLaunch: true,
      replied: (j, conv, text) => waitForReplyInTranscript(omp, j.homeOf('omp'), j.dir(), conv, text),
    },
    OMP,
    async ({ j, row, rowWhen }) => {
      const want = expected(OMP);
      // The window omp's models.yml declares for fake/fake-model (the fixture's 128000): records.
      expect(row).toMatchObject({
        ...want,
        contextWindow: 128_000,
        contextSource: 'records',
        contextPct: pct(want.contextTokens, 128_000),
      });
      expect(row.costUsd).toBeUndefined();
      expect(row.costWhy).toBe(`fake/fake-model is not in ${CATALOG}, and the settings name no price for it`);
      nameFakeModel(j);
      const priced = await rowWhen((r) => r.costUsd !== undefined, 'the omp seat priced from the settings');
      // The settings' price fills the gap; their window does not replace the one omp declares.
      expect(priced).toMatchObject({
        ...want,
        contextWindow: 128_000,
        contextSource: 'records',
        costSource: 'settings',
        costBasis: 'fake/fake-model: settings',
      });
      expect(priced.costUsd).toBeCloseTo(settingsCost(OMP, SETTINGS_PRICE), 6);
    },
  );
});
