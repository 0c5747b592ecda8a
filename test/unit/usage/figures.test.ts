/**
 * A seat's window and cost estimate from its records' totals: the records' own window first, then
 * the pinned catalog, then the person's settings; a model none of them knows leaves the figure
 * absent with the reason. The catalog is the real bundled one (no network: it is never updated).
 */
import { describe, expect, it } from 'vitest';
import { claudeDeclaredWindow } from '../../../src/main/engine/runtimes/usage/claude';
import type { UsageTotals } from '../../../src/main/engine/runtimes/usage/records';
import { bundledCatalog, CATALOG } from '../../../src/main/engine/usage/catalog';
import { seatFigures } from '../../../src/main/engine/usage/figures';
import { NO_SETTINGS, parseSettings } from '../../../src/main/engine/usage/settings';

const catalog = bundledCatalog();
const at = Date.parse('2026-12-05T10:00:00Z');
const kinds = { input: 1000, cacheRead: 20_000, cacheWrite: 3000, output: 500 };
const totals = (model: string, over: Partial<UsageTotals> = {}): UsageTotals => ({
  tokensIn: 24_000,
  tokensOut: 500,
  contextTokens: 24_500,
  model,
  byModel: { [model]: kinds },
  ...over,
});
const settings = (yaml: string) => {
  const r = parseSettings(yaml);
  expect(r.problem).toBeUndefined();
  return r.settings;
};

describe('the window and its source', () => {
  it("the records' window wins, and says so", () => {
    const f = seatFigures(totals('gpt-5.5', { contextWindow: 258_400 }), { catalog, settings: NO_SETTINGS, at });
    expect(f).toMatchObject({ contextWindow: 258_400, contextSource: 'records', contextPct: 9.5 });
  });

  it('a model the catalog knows takes its window from the catalog', () => {
    const f = seatFigures(totals('claude-opus-4-1'), { catalog, settings: NO_SETTINGS, at });
    expect(f).toMatchObject({ contextWindow: 200_000, contextSource: 'catalog', contextPct: 12.3 });
  });

  it("a model the catalog lacks: no window, no share, and why (naming the catalog's version)", () => {
    const f = seatFigures(totals('fake-model'), { catalog, settings: NO_SETTINGS, at });
    expect(f.contextWindow).toBeUndefined();
    expect(f.contextPct).toBeUndefined();
    expect(f.contextSource).toBeUndefined();
    expect(f.contextWhy).toBe(
      `fake-model is not in ${CATALOG.name} ${CATALOG.version}, and the settings name no window for it`,
    );
  });

  it("the person's settings fill a window the catalog lacks, and never replace the catalog's or the records'", () => {
    const s = settings('models:\n  fake-model: { window: 49000 }\n  claude-opus-4-1: { window: 100000 }\n');
    expect(seatFigures(totals('fake-model'), { catalog, settings: s, at })).toMatchObject({
      contextWindow: 49_000,
      contextSource: 'settings',
      contextPct: 50,
    });
    expect(seatFigures(totals('claude-opus-4-1'), { catalog, settings: s, at })).toMatchObject({
      contextWindow: 200_000,
      contextSource: 'catalog',
    });
    expect(seatFigures(totals('fake-model', { contextWindow: 98_000 }), { catalog, settings: s, at })).toMatchObject({
      contextWindow: 98_000,
      contextSource: 'records',
      contextPct: 25,
    });
  });

  it('Claude Code\'s "(1M context)" choice ([1m] in its settings) declares a million tokens for that model only', () => {
    expect(claudeDeclaredWindow('{"model":"opus[1m]"}', 'claude-opus-4-8')).toBe(1_000_000);
    expect(claudeDeclaredWindow('{"model":"claude-opus-4-8[1m]"}', 'claude-opus-4-8')).toBe(1_000_000);
    expect(claudeDeclaredWindow('{"model":"sonnet[1m]"}', 'claude-opus-4-8')).toBeUndefined();
    expect(claudeDeclaredWindow('{"model":"opus"}', 'claude-opus-4-8')).toBeUndefined();
    expect(claudeDeclaredWindow('not json', 'claude-opus-4-8')).toBeUndefined();
  });
});

describe('the cost estimate', () => {
  it('tokens by kind times the catalog prices of the model, with the basis named', () => {
    // claude-opus-4-1: 15 in, 1.5 cache read, 18.75 cache write, 75 out (USD per million).
    const f = seatFigures(totals('claude-opus-4-1'), { catalog, settings: NO_SETTINGS, at });
    const want = (1000 * 15 + 20_000 * 1.5 + 3000 * 18.75 + 500 * 75) / 1e6;
    expect(f.costUsd).toBe(Math.round(want * 1e6) / 1e6);
    expect(f.costSource).toBe('catalog');
    expect(f.costBasis).toBe(`claude-opus-4-1: ${CATALOG.name} ${CATALOG.version} (anthropic/claude-opus-4-1)`);
  });

  it('a settings price for the fake model makes a cost; without one it is absent, with why', () => {
    const none = seatFigures(totals('fake-model'), { catalog, settings: NO_SETTINGS, at });
    expect(none.costUsd).toBeUndefined();
    expect(none.costWhy).toMatch(/fake-model is not in @pydantic\/genai-prices .*no price/);
    const s = settings(
      'models:\n  fake-model:\n    usd_per_mtok: { input: 2, cache_read: 0.5, cache_write: 4, output: 10 }\n',
    );
    const f = seatFigures(totals('fake-model'), { catalog, settings: s, at });
    expect(f.costUsd).toBe((1000 * 2 + 20_000 * 0.5 + 3000 * 4 + 500 * 10) / 1e6);
    expect(f).toMatchObject({ costSource: 'settings', costBasis: 'fake-model: settings' });
  });

  it('a kind the prices leave out is priced as input; one unpriced model of two leaves the cost absent', () => {
    const s = settings('models:\n  fake-model:\n    usd_per_mtok: { input: 1, output: 1 }\n');
    expect(seatFigures(totals('fake-model'), { catalog, settings: s, at }).costUsd).toBe(24_500 / 1e6);
    const two = totals('fake-model', { byModel: { 'fake-model': kinds, 'other-model': kinds } });
    expect(seatFigures(two, { catalog, settings: s, at })).toMatchObject({
      costWhy: expect.stringMatching(/^other-model is not in/),
    });
    expect(seatFigures(two, { catalog, settings: s, at }).costUsd).toBeUndefined();
  });

  it('a Pi-style `provider/model` name finds the settings and the catalog by its model name too', () => {
    const s = settings('models:\n  fake-model:\n    usd_per_mtok: { input: 1, output: 1 }\n');
    const t = totals('fake/fake-model');
    expect(seatFigures(t, { catalog, settings: s, at }).costUsd).toBe(24_500 / 1e6);
    expect(seatFigures(totals('anthropic/claude-opus-4-1'), { catalog, settings: NO_SETTINGS, at }).contextWindow).toBe(
      200_000,
    );
  });
});

describe('the settings file is read as hostile input', () => {
  it('refuses unknown keys, negative prices, bad YAML and alias bombs, saying why', () => {
    expect(parseSettings('models:\n  m: { windw: 5 }\n').problem).toMatch(/Unrecognized key/);
    expect(parseSettings('models:\n  m: { usd_per_mtok: { input: -1, output: 1 } }\n').problem).toMatch(/input/);
    expect(parseSettings('models: [\n').problem).toMatch(/^YAML/);
    const bomb = [
      'a: &a [x, x, x, x, x, x, x, x, x]',
      ...Array.from(
        { length: 9 },
        (_, i) =>
          `${String.fromCharCode(98 + i)}: &${String.fromCharCode(98 + i)} [*${String.fromCharCode(97 + i)}, *${String.fromCharCode(97 + i)}, *${String.fromCharCode(97 + i)}, *${String.fromCharCode(97 + i)}, *${String.fromCharCode(97 + i)}, *${String.fromCharCode(97 + i)}, *${String.fromCharCode(97 + i)}, *${String.fromCharCode(97 + i)}, *${String.fromCharCode(97 + i)}]`,
      ),
    ].join('\n');
    expect(parseSettings(bomb).problem).toBeDefined();
    expect(parseSettings('').problem).toBeUndefined();
  });
});
