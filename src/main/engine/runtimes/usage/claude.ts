import { inputOf, KindsLedger } from './kinds';
import { num, obj, type RecordedLimit, str, type TokenKinds, type UsageSink, type UsageTotals } from './records';

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
  let limit: RecordedLimit | undefined;
  return {
    needles: ['"usage"', '"isApiErrorMessage"'],
    take(record) {
      const r = obj(record);
      const m = obj(r?.message);
      if (r?.type !== 'assistant' || !m) return;
      if (m.model === '<synthetic>') {
        limit = claudeLimit(r, m) ?? limit;
        return;
      }
      const u = obj(m.usage);
      if (!u) return;
      // A real reply after a limit message: the limit no longer stops it.
      limit = undefined;
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
    totals: () =>
      seen || limit
        ? { tokensIn, tokensOut, ...last, byModel: ledger.byModel(), ...(limit ? { limits: [limit] } : {}) }
        : undefined,
  };
}

/** Older Claude Code versions end a usage-limit message with `|<epoch seconds>` of the reset. */
const RESET_EPOCH = /\|(\d{10})\s*$/;

/**
 * A synthetic line that says a usage limit stopped the session: the words (one line, bounded) and
 * the reset time where the message gives it as an epoch; undefined for any other API error.
 */
function claudeLimit(r: Record<string, unknown>, m: Record<string, unknown>): RecordedLimit | undefined {
  const content = Array.isArray(m.content) ? m.content : [];
  const text = content
    .map((c) => str(obj(c)?.text) ?? '')
    .join(' ')
    .trim();
  if (r.isApiErrorMessage !== true && !/limit/i.test(text)) return undefined;
  if (!CLAUDE_LIMIT_WORDS.test(text)) return undefined;
  const reset = RESET_EPOCH.exec(text);
  const message = text.replace(RESET_EPOCH, '').split('\n')[0]!.slice(0, 200);
  return {
    limitId: 'usage_limit',
    window: 'reached',
    message,
    ...(reset ? { resetsAt: Number(reset[1]) * 1000 } : {}),
  };
}

/** The words Claude Code uses when a plan's limit (not a transient rate limit) stops it. */
const CLAUDE_LIMIT_WORDS = /usage limit|limit reached|hit your .*limit|Request rejected \(429\)/i;

/**
 * The window Claude Code's own settings declare: a model chosen with the `[1m]` suffix
 * (`opus[1m]`, `claude-opus-4-8[1m]`, the "(1M context)" entries of its model menu) runs with a
 * million-token window, which the transcript never names. Only when the chosen model is the one
 * the records name (or an alias that names its family), so a switch of model is not misread.
 */
export function claudeDeclaredWindow(text: string, model: string | undefined): number | undefined {
  let chosen: unknown;
  try {
    chosen = obj(JSON.parse(text))?.model;
  } catch {
    return undefined;
  }
  if (typeof chosen !== 'string' || !model) return undefined;
  const m = /^(.+)\[1m\]$/i.exec(chosen.trim());
  if (!m) return undefined;
  const base = m[1]!.toLowerCase();
  return model === base || model.startsWith(`${base}-`) || model.includes(`-${base}-`) ? 1_000_000 : undefined;
}
