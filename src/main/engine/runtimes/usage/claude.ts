import { num, obj, str, type UsageSink, type UsageTotals } from './records';

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
  // The ids of the last responses and what each added, to replace rather than add a repeated id.
  const recent = new Map<string, { in: number; out: number }>();
  return {
    needles: ['"usage"'],
    take(record) {
      const r = obj(record);
      const m = obj(r?.message);
      const u = obj(m?.usage);
      if (r?.type !== 'assistant' || !m || !u || m.model === '<synthetic>') return;
      const add = {
        in: num(u.input_tokens) + num(u.cache_creation_input_tokens) + num(u.cache_read_input_tokens),
        out: num(u.output_tokens),
      };
      const id = str(m.id);
      const before = id ? recent.get(id) : undefined;
      tokensIn += add.in - (before?.in ?? 0);
      tokensOut += add.out - (before?.out ?? 0);
      if (id) {
        recent.delete(id);
        recent.set(id, add);
        if (recent.size > RECENT_IDS) recent.delete(recent.keys().next().value!);
      }
      seen = true;
      // A subagent's lines (sidechain) count as tokens spent but say nothing of this context.
      if (r.isSidechain !== true) last = { contextTokens: add.in + add.out, model: str(m.model) };
    },
    totals: () => (seen ? { tokensIn, tokensOut, ...last } : undefined),
  };
}
