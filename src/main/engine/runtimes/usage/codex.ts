import { num, obj, type RecordedLimit, str, type TokenKinds, type UsageSink, type UsageTotals } from './records';

/**
 * Codex's rollout (observed: 0.171.0): `event_msg` lines of payload type `token_count` carry
 * `info.total_token_usage` (the thread's running totals: `input_tokens`, cached ones included as
 * `cached_input_tokens`, cache writes as `cache_write_input_tokens`, and `output_tokens`,
 * reasoning included), `info.last_token_usage` (the last call) and `info.model_context_window`.
 * The last such event is the answer; one whose `info` is null says nothing about tokens. Its
 * `rate_limits` (`limit_id`, `primary` and `secondary`: `used_percent`, `window_minutes`,
 * `resets_at` in epoch seconds) are the plan's windows as the last reply's headers gave them,
 * null where the provider sent none. The model is the last `turn_context`'s: the thread's totals
 * are counted as that model's.
 */
export function codexSink(): UsageSink {
  let totals: UsageTotals | undefined;
  let kinds: TokenKinds | undefined;
  let model: string | undefined;
  let limits: RecordedLimit[] | undefined;
  return {
    needles: ['"token_count"', '"turn_context"'],
    take(record) {
      const r = obj(record);
      const p = obj(r?.payload);
      if (r?.type === 'turn_context') {
        model = str(p?.model) ?? model;
        return;
      }
      if (r?.type !== 'event_msg' || p?.type !== 'token_count') return;
      limits = codexLimits(obj(p.rate_limits)) ?? limits;
      const info = obj(p.info);
      const total = obj(info?.total_token_usage);
      if (!info || !total) return;
      const lastCall = obj(info.last_token_usage);
      const window = num(info.model_context_window);
      const cached = num(total.cached_input_tokens);
      const cacheWrite = num(total.cache_write_input_tokens);
      totals = {
        tokensIn: num(total.input_tokens),
        tokensOut: num(total.output_tokens),
        ...(lastCall ? { contextTokens: num(lastCall.input_tokens) + num(lastCall.output_tokens) } : {}),
        ...(window > 0 ? { contextWindow: window } : {}),
      };
      kinds = {
        input: Math.max(0, num(total.input_tokens) - cached - cacheWrite),
        cacheRead: cached,
        cacheWrite,
        output: num(total.output_tokens),
      };
    },
    totals: () =>
      totals && {
        ...totals,
        ...(model ? { model } : {}),
        ...(kinds ? { byModel: { [model ?? '']: kinds } } : {}),
        ...(limits ? { limits } : {}),
      },
  };
}

/** The windows of one `rate_limits` record; undefined when it names none. */
function codexLimits(r: Record<string, unknown> | undefined): RecordedLimit[] | undefined {
  if (!r) return undefined;
  const limitId = str(r.limit_id) ?? 'codex';
  const out: RecordedLimit[] = [];
  for (const window of ['primary', 'secondary'] as const) {
    const w = obj(r[window]);
    if (!w || typeof w.used_percent !== 'number') continue;
    const minutes = num(w.window_minutes);
    const resets = num(w.resets_at);
    out.push({
      limitId,
      window,
      usedPercent: num(w.used_percent),
      ...(minutes > 0 ? { windowMinutes: minutes } : {}),
      ...(resets > 0 ? { resetsAt: resets * 1000 } : {}),
    });
  }
  return out.length > 0 ? out : undefined;
}
