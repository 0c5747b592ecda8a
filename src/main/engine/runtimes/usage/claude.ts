import { inputOf, KindsLedger } from './kinds';
import { num, obj, str, type TokenKinds, type UsageSink, type UsageTotals } from './records';

/**
 * Claude Code's transcript (observed: 2.1.197): every API response is an `assistant` line whose
 * `message` has the API's `id`, `model` and `usage` (`input_tokens`, `cache_creation_input_tokens`,
 * `cache_read_input_tokens`, `output_tokens`). A response of several content blocks may be written
 * as several lines of the same message id: the id is counted once, with the last usage written for
 * it. Synthetic lines (an API error shown as a message, model `<synthetic>`) carry no real usage.
 * The context window is not in the transcript: it names the API model (`claude-opus-4-8`) while the
 * session may run it with a 1M window (`claude-opus-4-8[1m]` in the CLI) or 200k.
 */
const RECENT_IDS = 64;

export function claudeSink(): UsageSink {
  let tokensIn = 0;
  let tokensOut = 0;
  let last: Pick<UsageTotals, 'contextTokens' | 'model'> | undefined;
  let seen = false;
  const ledger = new KindsLedger();
  // The ids of the last responses and what each added, to replace rather than add a repeated id.
  const recent = new Map<string, { kinds: TokenKinds; model?: string }>();
  return {
    needles: ['"usage"'],
    take(record) {
      const r = obj(record);
      const m = obj(r?.message);
      const u = obj(m?.usage);
      if (r?.type !== 'assistant' || !m || !u || m.model === '<synthetic>') return;
      const kinds: TokenKinds = {
        input: num(u.input_tokens),
        cacheRead: num(u.cache_read_input_tokens),
        cacheWrite: num(u.cache_creation_input_tokens),
        output: num(u.output_tokens),
      };
      const model = str(m.model);
      const id = str(m.id);
      const before = id ? recent.get(id) : undefined;
      if (before) {
        tokensIn -= inputOf(before.kinds);
        tokensOut -= before.kinds.output;
        ledger.add(before.model, before.kinds, -1);
      }
      tokensIn += inputOf(kinds);
      tokensOut += kinds.output;
      ledger.add(model, kinds);
      if (id) {
        recent.delete(id);
        recent.set(id, { kinds, model });
        if (recent.size > RECENT_IDS) recent.delete(recent.keys().next().value!);
      }
      seen = true;
      // A subagent's lines (sidechain) count as tokens spent but say nothing of this context.
      if (r.isSidechain !== true) last = { contextTokens: inputOf(kinds) + kinds.output, model };
    },
    totals: () => (seen ? { tokensIn, tokensOut, ...last, byModel: ledger.byModel() } : undefined),
  };
}
