import type { UsageTotals } from '../runtimes/usage/records';

/** What the ps row carries: absent fields are unknown, never zero. */
export interface UsageFields {
  contextPct?: number;
  tokensIn?: number;
  tokensOut?: number;
}

/** Share of the window the last call held, in percent with one decimal; undefined without a window. */
export function contextPct(t: Pick<UsageTotals, 'contextTokens' | 'contextWindow'>): number | undefined {
  if (t.contextTokens === undefined || !t.contextWindow || t.contextWindow <= 0) return undefined;
  return Math.round((1000 * t.contextTokens) / t.contextWindow) / 10;
}

export function usageFields(t: UsageTotals | undefined): UsageFields {
  if (!t) return {};
  const pct = contextPct(t);
  return { tokensIn: t.tokensIn, tokensOut: t.tokensOut, ...(pct !== undefined ? { contextPct: pct } : {}) };
}
