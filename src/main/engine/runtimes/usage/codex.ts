import { num, obj, type UsageSink, type UsageTotals } from './records';

/**
 * Codex's rollout (observed: 0.171.0): `event_msg` lines of payload type `token_count` carry
 * `info.total_token_usage` (the thread's running totals: `input_tokens`, cached ones included as
 * `cached_input_tokens`, and `output_tokens`, reasoning included), `info.last_token_usage` (the
 * last call) and `info.model_context_window`. The last such event is the answer; one whose `info`
 * is null (rate limits only) says nothing about tokens.
 */
export function codexSink(): UsageSink {
  let totals: UsageTotals | undefined;
  return {
    needles: ['"token_count"'],
    take(record) {
      const r = obj(record);
      const p = obj(r?.payload);
      const info = obj(p?.info);
      if (r?.type !== 'event_msg' || p?.type !== 'token_count' || !info) return;
      const total = obj(info.total_token_usage);
      if (!total) return;
      const lastCall = obj(info.last_token_usage);
      const window = num(info.model_context_window);
      totals = {
        tokensIn: num(total.input_tokens),
        tokensOut: num(total.output_tokens),
        ...(lastCall ? { contextTokens: num(lastCall.input_tokens) + num(lastCall.output_tokens) } : {}),
        ...(window > 0 ? { contextWindow: window } : {}),
      };
    },
    totals: () => totals,
  };
}
