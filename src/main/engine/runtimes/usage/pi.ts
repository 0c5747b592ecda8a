import { join } from 'node:path';
import { parse } from 'yaml';
import { KindsLedger } from './kinds';
import { num, obj, str, type UsageSink, type UsageTotals } from './records';

/**
 * Pi's session file (observed: 0.73.1): each model reply is a `message` line whose `message` has
 * role `assistant`, its `provider` and `model`, and `usage` (`input` without the cached part,
 * `cacheRead`, `cacheWrite`, `output`, `totalTokens`). The file is a tree (branches a person left
 * stay in it): every reply counts as tokens spent; the context is the last reply written. The
 * window is not in the session: Pi takes it from the model's entry, which for a provider of the
 * agent dir's own `models.json` declares it (`contextWindow`); Pi's built-in providers' windows are
 * in its own code, and are not read.
 */
export function piSink(): UsageSink {
  let tokensIn = 0;
  let tokensOut = 0;
  let last: Pick<UsageTotals, 'contextTokens' | 'provider' | 'model'> | undefined;
  const ledger = new KindsLedger();
  return {
    needles: ['"usage"'],
    take(record) {
      const r = obj(record);
      const m = obj(r?.message);
      const u = obj(m?.usage);
      if (r?.type !== 'message' || m?.role !== 'assistant' || !u) return;
      const input = num(u.input) + num(u.cacheRead) + num(u.cacheWrite);
      const output = num(u.output);
      tokensIn += input;
      tokensOut += output;
      const provider = str(m.provider);
      const model = str(m.model);
      // Kept by provider and model: two providers may serve models of one name.
      ledger.add(provider && model ? `${provider}/${model}` : model, {
        input: num(u.input),
        cacheRead: num(u.cacheRead),
        cacheWrite: num(u.cacheWrite),
        output,
      });
      last = { contextTokens: input + output, provider, model };
    },
    totals: () => (last ? { tokensIn, tokensOut, ...last, byModel: ledger.byModel() } : undefined),
  };
}

/** Where Pi's agent dir declares its own providers and models. */
export const piModelsFile = (home: string): string => join(home, 'models.json');

/** The window `models.json` declares for a provider's model, if it declares one. */
export function piDeclaredWindow(modelsJson: string, provider: string, model: string): number | undefined {
  let parsed: unknown;
  try {
    parsed = JSON.parse(modelsJson);
  } catch {
    return undefined;
  }
  return declaredWindow(parsed, provider, model);
}

/**
 * omp (Pi's fork) keeps Pi's session records and its `providers: {<id>: {models: [{id,
 * contextWindow}]}}` shape, in YAML: `models.yml` in its agent dir.
 */
export const ompModelsFile = (home: string): string => join(home, 'models.yml');

export function ompDeclaredWindow(modelsYaml: string, provider: string, model: string): number | undefined {
  let parsed: unknown;
  try {
    parsed = parse(modelsYaml);
  } catch {
    return undefined;
  }
  return declaredWindow(parsed, provider, model);
}

function declaredWindow(parsed: unknown, provider: string, model: string): number | undefined {
  const models = obj(obj(obj(parsed)?.providers)?.[provider])?.models;
  if (!Array.isArray(models)) return undefined;
  const entry = models.map(obj).find((m) => m?.id === model);
  const w = num(entry?.contextWindow);
  return w > 0 ? w : undefined;
}
