import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type FakeModelServer, startFakeModelServer } from './fake-model-server';
import { get, postSse } from './sse-client';

/**
 * `USAGE:<input>:<output>[:<cacheRead>[:<cacheWrite>]]` in a prompt makes the reply report exactly
 * those figures, in each API's own usage fields, and the server's log says what it reported: the
 * token readers' acceptance compares an agent's own records with these.
 */
let server: FakeModelServer;
beforeAll(async () => {
  server = await startFakeModelServer();
});
afterAll(() => server.close());

const FIGURES = { input: 52301, output: 417, cacheRead: 3400, cacheWrite: 1200 };
const PROMPT = 'count this USAGE:52301:417:3400:1200 please';

describe('fake server: usage figures a prompt names', () => {
  it('Anthropic: input, cache read and cache creation in message_start, the output in message_delta', async () => {
    const { events } = await postSse(`${server.url}/v1/messages`, {
      model: 'claude-x',
      stream: true,
      messages: [{ role: 'user', content: PROMPT }],
    });
    expect(get(events[0]!.json, 'message', 'usage')).toMatchObject({
      input_tokens: 52301,
      cache_read_input_tokens: 3400,
      cache_creation_input_tokens: 1200,
    });
    expect(get(events.find((e) => e.event === 'message_delta')!.json, 'usage', 'output_tokens')).toBe(417);
    expect(server.requests.at(-1)).toMatchObject({ route: 'messages', trigger: 'ack', usage: FIGURES });
  });

  it('Responses: input_tokens with its cached part, output_tokens', async () => {
    const { events } = await postSse(`${server.url}/v1/responses`, {
      model: 'fake-model',
      stream: true,
      input: [{ type: 'message', role: 'user', content: [{ type: 'input_text', text: PROMPT }] }],
    });
    const usage = get(events.at(-1)!.json, 'response', 'usage');
    expect(usage).toMatchObject({
      input_tokens: 52301,
      input_tokens_details: { cached_tokens: 3400 },
      output_tokens: 417,
      total_tokens: 52301 + 417,
    });
    expect(server.requests.at(-1)).toMatchObject({ route: 'responses', usage: FIGURES });
  });

  it('Chat Completions: prompt_tokens with its cached part, completion_tokens', async () => {
    const { events } = await postSse(`${server.url}/v1/chat/completions`, {
      stream: true,
      stream_options: { include_usage: true },
      messages: [{ role: 'user', content: PROMPT }],
    });
    const usage = get(events.at(-2)!.json, 'usage');
    expect(usage).toEqual({
      prompt_tokens: 52301,
      completion_tokens: 417,
      total_tokens: 52301 + 417,
      prompt_tokens_details: { cached_tokens: 3400 },
    });
    expect(server.requests.at(-1)).toMatchObject({ route: 'chat_completions', usage: FIGURES });
  });

  it('Gemini: promptTokenCount with its cached part, candidatesTokenCount', async () => {
    const { events } = await postSse(`${server.url}/v1beta/models/gemini-2.5-flash:streamGenerateContent?alt=sse`, {
      contents: [{ role: 'user', parts: [{ text: PROMPT }] }],
    });
    expect(get(events.at(-1)!.json, 'usageMetadata')).toEqual({
      promptTokenCount: 52301,
      candidatesTokenCount: 417,
      totalTokenCount: 52301 + 417,
      cachedContentTokenCount: 3400,
    });
    expect(server.requests.at(-1)).toMatchObject({ route: 'gemini_stream', usage: FIGURES });
  });

  it('without the trigger the figures are estimated and the log names none; a tool result never inherits them', async () => {
    const { events } = await postSse(`${server.url}/v1/chat/completions`, {
      stream: true,
      stream_options: { include_usage: true },
      messages: [
        { role: 'user', content: PROMPT },
        { role: 'assistant', content: 'x' },
        { role: 'tool', content: 'out' },
      ],
    });
    expect(get(events.at(-2)!.json, 'usage', 'prompt_tokens')).not.toBe(52301);
    expect(server.requests.at(-1)).toMatchObject({ trigger: 'tool_result' });
    expect(server.requests.at(-1)!.usage).toBeUndefined();
  });
});
