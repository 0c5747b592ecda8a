import { KindsLedger } from './kinds';
import { num, obj, str, type TokenKinds, type UsageSink } from './records';

/**
 * Gemini CLI's session file (observed: 0.61.0): each model reply is a `gemini` record with an `id`
 * and `tokens` (`input`, cached ones included as `cached`, `output`, `thoughts`, `tool`, `total`).
 * The file also patches itself: a `{"$set":{"messages":[…]}}` line replaces the message list, and a
 * record may be written again under the same id. So tokens are kept per message id, and a `$set`
 * of the messages starts the count again from the list it sets. No context window is recorded
 * (the CLI takes it from its own table of model names).
 */
export function geminiSink(): UsageSink {
  const byId = new Map<string, { kinds: TokenKinds; model?: string }>();
  const ledger = new KindsLedger();
  let tokensIn = 0;
  let tokensOut = 0;
  let last: { contextTokens: number; model?: string } | undefined;
  const put = (m: Record<string, unknown>): void => {
    const t = obj(m.tokens);
    if (m.type !== 'gemini' || !t) return;
    const cached = Math.min(num(t.cached), num(t.input));
    const kinds: TokenKinds = {
      input: num(t.input) - cached,
      cacheRead: cached,
      cacheWrite: 0,
      output: num(t.output) + num(t.thoughts),
    };
    const model = str(m.model);
    const id = str(m.id) ?? `#${byId.size}`;
    const before = byId.get(id);
    if (before) {
      tokensIn -= before.kinds.input + before.kinds.cacheRead;
      tokensOut -= before.kinds.output;
      ledger.add(before.model, before.kinds, -1);
    }
    tokensIn += num(t.input);
    tokensOut += kinds.output;
    ledger.add(model, kinds);
    byId.set(id, { kinds, model });
    last = { contextTokens: num(t.input) + num(t.output), model };
  };
  return {
    needles: ['"tokens"', '"$set"'],
    take(record) {
      const r = obj(record);
      if (!r) return;
      const set = obj(r.$set);
      if (set && Array.isArray(set.messages)) {
        byId.clear();
        ledger.clear();
        tokensIn = tokensOut = 0;
        last = undefined;
        for (const m of set.messages) {
          const o = obj(m);
          if (o) put(o);
        }
        return;
      }
      put(r);
    },
    totals: () => (byId.size > 0 ? { tokensIn, tokensOut, ...last, byModel: ledger.byModel() } : undefined),
  };
}
