import { num, obj, str, type UsageSink } from './records';

/**
 * Gemini CLI's session file (observed: 0.61.0): each model reply is a `gemini` record with an `id`
 * and `tokens` (`input`, cached ones included as `cached`, `output`, `thoughts`, `tool`, `total`).
 * The file also patches itself: a `{"$set":{"messages":[…]}}` line replaces the message list, and a
 * record may be written again under the same id. So tokens are kept per message id, and a `$set`
 * of the messages starts the count again from the list it sets. No context window is recorded
 * (the CLI takes it from its own table of model names).
 */
export function geminiSink(): UsageSink {
  const byId = new Map<string, { in: number; out: number }>();
  let tokensIn = 0;
  let tokensOut = 0;
  let last: { contextTokens: number; model?: string } | undefined;
  const put = (m: Record<string, unknown>): void => {
    const t = obj(m.tokens);
    if (m.type !== 'gemini' || !t) return;
    const add = { in: num(t.input), out: num(t.output) + num(t.thoughts) };
    const id = str(m.id) ?? `#${byId.size}`;
    const before = byId.get(id);
    tokensIn += add.in - (before?.in ?? 0);
    tokensOut += add.out - (before?.out ?? 0);
    byId.set(id, add);
    last = { contextTokens: add.in + num(t.output), model: str(m.model) };
  };
  return {
    needles: ['"tokens"', '"$set"'],
    take(record) {
      const r = obj(record);
      if (!r) return;
      const set = obj(r.$set);
      if (set && Array.isArray(set.messages)) {
        byId.clear();
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
    totals: () => (byId.size > 0 ? { tokensIn, tokensOut, ...last } : undefined),
  };
}
