/**
 * Record lines in the shapes the real CLIs write (taken from their files after a reply from the fake
 * model server to `USAGE:<in>:<out>:<cacheRead>:<cacheWrite>`, fields that do not matter trimmed),
 * one builder per runtime, for the token readers' unit tests. test/agents/usage-records.test.ts
 * checks the same readers against the files the real CLIs write.
 */
import { claudeSink } from '../../../src/main/engine/runtimes/usage/claude';
import { codexSink } from '../../../src/main/engine/runtimes/usage/codex';
import { geminiSink } from '../../../src/main/engine/runtimes/usage/gemini';
import { piSink } from '../../../src/main/engine/runtimes/usage/pi';
import { qwenSink } from '../../../src/main/engine/runtimes/usage/qwen';
import type { ByModel, UsageSink } from '../../../src/main/engine/runtimes/usage/records';

export interface Call {
  input: number;
  output: number;
  cacheRead?: number;
  cacheWrite?: number;
  id?: string;
}

export interface RuntimeRecords {
  sink: () => UsageSink;
  /** Lines that carry no usage (what else the file holds). */
  noise: string[];
  /** The line(s) one model call writes, after `earlier` calls (Codex writes running totals). */
  call(c: Call, n: number, earlier: Call[]): string[];
  /** What the reader must make of these calls (Codex: its running totals, one event per call). */
  expected(calls: Call[]): {
    tokensIn: number;
    tokensOut: number;
    contextTokens: number;
    contextWindow?: number;
    byModel: ByModel;
  };
}

const sum = (calls: Call[], f: (c: Call) => number): number => calls.reduce((a, c) => a + f(c), 0);
const allIn = (c: Call): number => c.input + (c.cacheRead ?? 0) + (c.cacheWrite ?? 0);
/** OpenAI and Gemini count cached input inside `input` (a cache write is not theirs). */
const openaiIn = (c: Call): number => c.input + (c.cacheRead ?? 0);
const j = (v: unknown): string => JSON.stringify(v);
/** The calls' tokens by kind, all of one model; `openai`: cached input inside `input` (OpenAI, Gemini). */
const kinds = (model: string, calls: Call[]): ByModel => ({
  [model]: {
    input: sum(calls, (c) => c.input),
    cacheRead: sum(calls, (c) => c.cacheRead ?? 0),
    cacheWrite: sum(calls, (c) => c.cacheWrite ?? 0),
    output: sum(calls, (c) => c.output),
  },
});
const noWrites = (calls: Call[]): Call[] => calls.map((c) => ({ ...c, cacheWrite: 0 }));

export const RECORDS: Record<string, RuntimeRecords> = {
  'claude-code': {
    sink: claudeSink,
    noise: [
      j({ type: 'queue-operation', operation: 'enqueue' }),
      j({ type: 'user', message: { role: 'user', content: 'the "usage" of words' }, isSidechain: false }),
      j({ type: 'last-prompt', lastPrompt: 'x' }),
    ],
    call: (c, n) => [
      j({
        parentUuid: 'p',
        isSidechain: false,
        message: {
          id: c.id ?? `msg_${n}`,
          type: 'message',
          role: 'assistant',
          model: 'claude-opus-4-8',
          content: [{ type: 'text', text: `ACK ${n} ü` }],
          usage: {
            input_tokens: c.input,
            cache_creation_input_tokens: c.cacheWrite ?? 0,
            cache_read_input_tokens: c.cacheRead ?? 0,
            output_tokens: c.output,
            server_tool_use: { web_search_requests: 0 },
            service_tier: 'standard',
          },
        },
        type: 'assistant',
        uuid: `u${n}`,
        version: '2.1.197',
      }),
    ],
    expected: (calls) => ({
      tokensIn: sum(calls, allIn),
      tokensOut: sum(calls, (c) => c.output),
      contextTokens: allIn(calls.at(-1)!) + calls.at(-1)!.output,
      byModel: kinds('claude-opus-4-8', calls),
    }),
  },
  codex: {
    sink: codexSink,
    noise: [
      j({ type: 'session_meta', payload: { id: 't', cwd: '/w', cli_version: '0.171.0' } }),
      j({ type: 'event_msg', payload: { type: 'task_started', turn_id: 't1' } }),
      j({ type: 'event_msg', payload: { type: 'token_count', info: null, rate_limits: { limit_id: 'codex' } } }),
    ],
    call: (c, _n, earlier) => {
      const usage = (calls: Call[]) => ({
        input_tokens: sum(calls, openaiIn),
        cached_input_tokens: sum(calls, (x) => x.cacheRead ?? 0),
        cache_write_input_tokens: 0,
        output_tokens: sum(calls, (x) => x.output),
        reasoning_output_tokens: 0,
        total_tokens: sum(calls, (x) => openaiIn(x) + x.output),
      });
      return [
        j({ type: 'turn_context', payload: { turn_id: 't', cwd: '/w', model: 'gpt-5.5', summary: 'none' } }),
        j({ type: 'response_item', payload: { type: 'message', role: 'assistant', content: [{ text: 'ACK' }] } }),
        j({
          type: 'event_msg',
          payload: {
            type: 'token_count',
            info: {
              total_token_usage: usage([...earlier, c]),
              last_token_usage: usage([c]),
              last_usage_includes_reasoning: false,
              model_context_window: 258400,
            },
            rate_limits: { limit_id: 'codex', primary: null },
          },
        }),
      ];
    },
    expected: (calls) => ({
      tokensIn: sum(calls, openaiIn),
      tokensOut: sum(calls, (c) => c.output),
      contextTokens: openaiIn(calls.at(-1)!) + calls.at(-1)!.output,
      contextWindow: 258400,
      byModel: kinds('gpt-5.5', noWrites(calls)),
    }),
  },
  pi: {
    sink: piSink,
    noise: [
      j({ type: 'session', version: 3, id: 's', timestamp: 't', cwd: '/w' }),
      j({ type: 'model_change', provider: 'fake', modelId: 'fake-model' }),
      j({ type: 'message', message: { role: 'user', content: [{ type: 'text', text: 'hi' }] } }),
    ],
    call: (c, n) => [
      j({
        type: 'message',
        id: `m${n}`,
        message: {
          role: 'assistant',
          content: [{ type: 'text', text: `ACK ${n}` }],
          api: 'openai-completions',
          provider: 'fake',
          model: 'fake-model',
          usage: {
            input: c.input,
            output: c.output,
            cacheRead: c.cacheRead ?? 0,
            cacheWrite: c.cacheWrite ?? 0,
            totalTokens: allIn(c) + c.output,
            cost: { total: 0 },
          },
        },
      }),
    ],
    expected: (calls) => ({
      tokensIn: sum(calls, allIn),
      tokensOut: sum(calls, (c) => c.output),
      contextTokens: allIn(calls.at(-1)!) + calls.at(-1)!.output,
      byModel: kinds('fake/fake-model', calls),
    }),
  },
  gemini: {
    sink: geminiSink,
    noise: [
      j({ sessionId: 's', projectHash: 'h', startTime: 't', kind: 'main' }),
      j({ id: 'u1', type: 'user', content: [{ text: 'the tokens word' }] }),
      j({ $set: { lastUpdated: 't' } }),
    ],
    call: (c, n) => [
      j({
        id: c.id ?? `g${n}`,
        type: 'gemini',
        content: `ACK ${n}`,
        thoughts: [],
        tokens: {
          input: openaiIn(c),
          output: c.output,
          cached: c.cacheRead ?? 0,
          thoughts: 0,
          tool: 0,
          total: openaiIn(c) + c.output,
        },
        model: 'gemini-2.5-flash',
      }),
    ],
    expected: (calls) => ({
      tokensIn: sum(calls, openaiIn),
      tokensOut: sum(calls, (c) => c.output),
      contextTokens: openaiIn(calls.at(-1)!) + calls.at(-1)!.output,
      byModel: kinds('gemini-2.5-flash', noWrites(calls)),
    }),
  },
  qwen: {
    sink: qwenSink,
    noise: [
      j({ type: 'user', message: { role: 'user', parts: [{ text: 'hi' }] } }),
      j({
        type: 'system',
        subtype: 'ui_telemetry',
        systemPayload: { uiEvent: { 'event.name': 'qwen-code.api_response', input_token_count: 6512 } },
      }),
    ],
    call: (c, n) => [
      j({
        uuid: `q${n}`,
        type: 'assistant',
        model: 'fake-model',
        message: { role: 'model', parts: [{ text: `ACK ${n}` }] },
        usageMetadata: {
          promptTokenCount: openaiIn(c),
          candidatesTokenCount: c.output,
          thoughtsTokenCount: 0,
          totalTokenCount: openaiIn(c) + c.output,
          cachedContentTokenCount: c.cacheRead ?? 0,
        },
      }),
    ],
    expected: (calls) => ({
      tokensIn: sum(calls, openaiIn),
      tokensOut: sum(calls, (c) => c.output),
      contextTokens: openaiIn(calls.at(-1)!) + calls.at(-1)!.output,
      byModel: kinds('fake-model', noWrites(calls)),
    }),
  },
};
