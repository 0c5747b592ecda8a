/**
 * Claude Code's usage-limit message as its transcript records it (a synthetic assistant line, an
 * API error shown as a message): the reader keeps it as the account's reached limit, with its
 * reset time where the message gives one as an epoch, and lets it go once a real reply follows.
 * Other API errors are no limit.
 */
import { describe, expect, it } from 'vitest';
import { claudeSink } from '../../../src/main/engine/runtimes/usage/claude';

const synthetic = (text: string) => ({
  type: 'assistant',
  isApiErrorMessage: true,
  message: {
    id: 'x',
    model: '<synthetic>',
    role: 'assistant',
    content: [{ type: 'text', text }],
    usage: { input_tokens: 0, output_tokens: 0 },
  },
});
const reply = (id: string) => ({
  type: 'assistant',
  message: {
    id,
    model: 'claude-opus-4-8',
    usage: { input_tokens: 10, cache_read_input_tokens: 5, cache_creation_input_tokens: 0, output_tokens: 2 },
  },
});

describe("Claude Code's usage limit, from its transcript", () => {
  it('a limit message with an epoch reset: reached, its words, the reset time; no tokens counted for it', () => {
    const sink = claudeSink();
    sink.take(reply('m1'));
    sink.take(synthetic('Claude AI usage limit reached|1893456000'));
    expect(sink.totals()).toMatchObject({
      tokensIn: 15,
      tokensOut: 2,
      limits: [
        {
          limitId: 'usage_limit',
          window: 'reached',
          message: 'Claude AI usage limit reached',
          resetsAt: 1_893_456_000_000,
        },
      ],
    });
  });

  it('a limit message in words ("You\'ve hit your limit"): reached, its words kept, no reset guessed', () => {
    const sink = claudeSink();
    sink.take(synthetic("API Error: Request rejected (429) · You've hit your usage limit · resets 3pm"));
    const t = sink.totals()!;
    expect(t.limits).toEqual([
      {
        limitId: 'usage_limit',
        window: 'reached',
        message: "API Error: Request rejected (429) · You've hit your usage limit · resets 3pm",
      },
    ]);
    expect(t.tokensIn).toBe(0);
  });

  it('a real reply after it: the limit no longer holds; another API error is no limit', () => {
    const sink = claudeSink();
    sink.take(synthetic('Claude AI usage limit reached|1893456000'));
    sink.take(reply('m2'));
    expect(sink.totals()!.limits).toBeUndefined();
    const other = claudeSink();
    other.take(
      synthetic('API Error: 500 {"type":"error","error":{"type":"api_error","message":"Internal server error"}}'),
    );
    expect(other.totals()).toBeUndefined();
  });
});
