import { KindsLedger } from './kinds';
import { num, obj, str, type UsageSink } from './records';

/**
 * Qwen Code's chat file (observed: 0.15.10): each model reply of the conversation is an
 * `assistant` record with `usageMetadata` (`promptTokenCount`, cached ones included as
 * `cachedContentTokenCount`, `candidatesTokenCount`, `thoughtsTokenCount`). Its `system`
 * `ui_telemetry` records also log calls made beside the conversation (its memory extraction), which
 * are not the conversation's and are not counted. No context window is recorded (the CLI takes it
 * from its table of model names or a settings override).
 */
export function qwenSink(): UsageSink {
  let tokensIn = 0;
  let tokensOut = 0;
  let last: { contextTokens: number; model?: string } | undefined;
  const ledger = new KindsLedger();
  return {
    needles: ['"usageMetadata"'],
    take(record) {
      const r = obj(record);
      const u = obj(r?.usageMetadata);
      if (r?.type !== 'assistant' || !u) return;
      const input = num(u.promptTokenCount);
      const output = num(u.candidatesTokenCount);
      tokensIn += input;
      tokensOut += output + num(u.thoughtsTokenCount);
      const cached = Math.min(num(u.cachedContentTokenCount), input);
      const model = str(r.model);
      ledger.add(model, {
        input: input - cached,
        cacheRead: cached,
        cacheWrite: 0,
        output: output + num(u.thoughtsTokenCount),
      });
      last = { contextTokens: input + output, model };
    },
    totals: () => (last ? { tokensIn, tokensOut, ...last, byModel: ledger.byModel() } : undefined),
  };
}
