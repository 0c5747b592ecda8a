import { type Catalog, CATALOG, type ModelPrices } from './catalog';
import { inputOf } from '../runtimes/usage/kinds';
import type { TokenKinds, UsageTotals } from '../runtimes/usage/records';
import { modelSettingsFor, type UsageSettings } from './settings';
import { contextPct } from './types';

/** Where a window or a price came from: the runtime's own records (or config), the catalog, the person's settings. */
export type FigureSource = 'records' | 'catalog' | 'settings';

/**
 * A seat's usage as ps shows it. Each figure is absent where it is not known, never guessed; an
 * absent window or cost says why. The cost is an estimate: the tokens by kind times the model's
 * prices per million tokens.
 */
export interface SeatFigures {
  tokensIn?: number;
  tokensOut?: number;
  contextTokens?: number;
  contextWindow?: number;
  contextSource?: FigureSource;
  contextPct?: number;
  contextWhy?: string;
  costUsd?: number;
  costSource?: 'catalog' | 'settings' | 'catalog+settings';
  /** What the estimate rests on: the catalog and its version, or the settings, per model. */
  costBasis?: string;
  costWhy?: string;
}

export interface FigureInputs {
  catalog: Catalog;
  settings: UsageSettings;
  /** When (ms epoch): a catalog price may change on a date. */
  at: number;
}

const catalogName = `${CATALOG.name} ${CATALOG.version}`;

/** The model as the settings and the catalog are asked for it: with its provider where the records name one. */
function modelKey(t: UsageTotals): string | undefined {
  if (!t.model) return undefined;
  return t.provider && !t.model.includes('/') ? `${t.provider}/${t.model}` : t.model;
}

/**
 * The window: the records', else the catalog's, else the person's settings for the model; else why
 * not. The settings fill what the runtime and the catalog leave unknown (the issue's order), so a
 * figure a maintained source states is never replaced by a hand-typed one.
 */
export function resolveWindow(
  t: UsageTotals,
  inputs: FigureInputs,
): { window: number; source: FigureSource } | { why: string } {
  if (t.contextWindow) return { window: t.contextWindow, source: 'records' };
  const model = modelKey(t);
  if (!model) return { why: 'the records name no model, and the runtime records no window' };
  const hit = inputs.catalog(model, inputs.at);
  if (hit?.window) return { window: hit.window, source: 'catalog' };
  const own = modelSettingsFor(inputs.settings, model)?.window;
  if (own) return { window: own, source: 'settings' };
  return {
    why: hit
      ? `${catalogName} knows ${model} as ${hit.id} but not its window, and the settings name none`
      : `${model} is not in ${catalogName}, and the settings name no window for it`,
  };
}

const priced = (k: TokenKinds, p: ModelPrices): number =>
  (k.input * p.input +
    k.cacheRead * (p.cacheRead ?? p.input) +
    k.cacheWrite * (p.cacheWrite ?? p.input) +
    k.output * p.output) /
  1_000_000;

/** Rounded to a millionth of a dollar, so sums of rows add up as the rows show them. */
export const roundUsd = (usd: number): number => Math.round(usd * 1_000_000) / 1_000_000;

/** The estimate over every model the records name; absent (with why) when one of them has no price. */
export function estimateCost(
  t: UsageTotals,
  inputs: FigureInputs,
): Pick<SeatFigures, 'costUsd' | 'costSource' | 'costBasis' | 'costWhy'> {
  const used = Object.entries(t.byModel ?? {}).filter(([, k]) => inputOf(k) + k.output > 0);
  if (used.length === 0) return t.byModel ? { costUsd: 0 } : { costWhy: 'the records give no tokens by kind' };
  let usd = 0;
  const sources = new Set<'catalog' | 'settings'>();
  const basis: string[] = [];
  for (const [name, kinds] of used) {
    const model = name || undefined;
    if (!model) return { costWhy: 'the records name no model for some of the tokens' };
    // The same order as the window: the catalog's prices, else the settings'.
    const hit = inputs.catalog(model, inputs.at);
    const own = hit?.prices ? undefined : modelSettingsFor(inputs.settings, model)?.prices;
    const prices = hit?.prices ?? own;
    if (!prices)
      return {
        costWhy: hit
          ? `${catalogName} knows ${model} as ${hit.id} but not its prices, and the settings name none`
          : `${model} is not in ${catalogName}, and the settings name no price for it`,
      };
    usd += priced(kinds, prices);
    sources.add(own ? 'settings' : 'catalog');
    basis.push(own ? `${model}: settings` : `${model}: ${catalogName} (${hit!.id}${hit!.tiered ? ', base rate' : ''})`);
  }
  return {
    costUsd: roundUsd(usd),
    costSource: sources.size === 2 ? 'catalog+settings' : [...sources][0]!,
    costBasis: basis.join('; '),
  };
}

/** Everything ps shows of a seat's usage, from its records' totals (undefined: none known). */
export function seatFigures(t: UsageTotals | undefined, inputs: FigureInputs): SeatFigures {
  if (!t) return {};
  const out: SeatFigures = { tokensIn: t.tokensIn, tokensOut: t.tokensOut, ...estimateCost(t, inputs) };
  if (t.contextTokens === undefined) return out;
  out.contextTokens = t.contextTokens;
  const w = resolveWindow(t, inputs);
  if ('why' in w) return { ...out, contextWhy: w.why };
  const pct = contextPct({ contextTokens: t.contextTokens, contextWindow: w.window });
  return {
    ...out,
    contextWindow: w.window,
    contextSource: w.source,
    ...(pct !== undefined ? { contextPct: pct } : {}),
  };
}
