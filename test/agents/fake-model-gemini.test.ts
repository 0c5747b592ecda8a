import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type FakeModelServer, startFakeModelServer } from './fake-model-server';
import { get, post, postSse } from './sse-client';

let server: FakeModelServer;
beforeAll(async () => {
  server = await startFakeModelServer({ slowChunks: 3, slowMs: 100, waitMs: 300 });
});
afterAll(() => server.close());

const TOOLS = [
  {
    functionDeclarations: [
      { name: 'read_file', parameters: {} },
      { name: 'run_shell_command', parameters: {} },
    ],
  },
];
const user = (...texts: string[]) => ({ role: 'user', parts: texts.map((text) => ({ text })) });
const streamUrl = (m = 'gemini-2.5-flash') => `${server.url}/v1beta/models/${m}:streamGenerateContent?alt=sse`;
const textOf = (events: { json: Record<string, unknown> | undefined }[]) =>
  events.map((e) => get(e.json, 'candidates', 0, 'content', 'parts', 0, 'text') ?? '').join('');

describe('fake server: Gemini API', () => {
  it('streams `data: {candidates}` chunks that join to the ACK, the last with finishReason STOP and usage', async () => {
    const { res, events } = await postSse(streamUrl(), {
      contents: [user('<session_context>\nThis is the Gemini CLI.\n</session_context>', 'hello gemini')],
    });
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toContain('text/event-stream');
    expect(events.length).toBeGreaterThan(1);
    expect(events.every((e) => e.event === undefined && e.json !== undefined)).toBe(true);
    expect(textOf(events)).toBe('ACK hello gemini');
    const last = events.at(-1)!.json;
    expect(get(last, 'candidates', 0, 'finishReason')).toBe('STOP');
    expect(get(last, 'candidates', 0, 'content', 'role')).toBe('model');
    expect(get(last, 'usageMetadata', 'totalTokenCount')).toBeGreaterThan(0);
    expect(server.requests.at(-1)).toMatchObject({ route: 'gemini_stream', trigger: 'ack' });
  });

  it('strips the <session_context> block Gemini CLI sends with the prompt (a context-only turn is no prompt)', async () => {
    const { events } = await postSse(streamUrl(), {
      contents: [
        user('first'),
        { role: 'model', parts: [{ text: 'ACK first' }] },
        user('<session_context>x</session_context>\nsecond'),
      ],
    });
    expect(textOf(events)).toBe('ACK second');
  });

  it('RUN: becomes a functionCall to run_shell_command {command} when offered', async () => {
    const { events } = await postSse(streamUrl(), { contents: [user('RUN: touch gm.txt')], tools: TOOLS });
    const call = get(events.at(-1)!.json, 'candidates', 0, 'content', 'parts', 0, 'functionCall');
    expect(call).toEqual({ name: 'run_shell_command', args: { command: 'touch gm.txt' } });
    expect(server.requests.at(-1)!.trigger).toBe('run');
  });

  it('a functionResponse turn gets `ACK tool result: …` with the output in it', async () => {
    const contents = [
      user('RUN: echo hi'),
      { role: 'model', parts: [{ functionCall: { name: 'run_shell_command', args: { command: 'echo hi' } } }] },
      {
        role: 'user',
        parts: [{ functionResponse: { name: 'run_shell_command', response: { output: 'Output: hi-from-shell' } } }],
      },
    ];
    const { events } = await postSse(streamUrl(), { contents, tools: TOOLS });
    expect(textOf(events)).toMatch(/^ACK tool result: .*hi-from-shell/);
  });

  it(':generateContent answers one JSON body with the whole reply', async () => {
    const res = await post(`${server.url}/v1beta/models/gemini-2.5-flash:generateContent`, {
      contents: [user('summarise')],
    });
    expect(res.status).toBe(200);
    const body = await res.json();
    expect(get(body, 'candidates', 0, 'content', 'parts', 0, 'text')).toBe('ACK summarise');
    expect(get(body, 'candidates', 0, 'finishReason')).toBe('STOP');
    expect(server.requests.at(-1)!.route).toBe('gemini_generate');
  });

  it(':countTokens answers {totalTokens}', async () => {
    const res = await post(`${server.url}/v1beta/models/gemini-2.5-flash:countTokens`, {
      contents: [user('count me')],
    });
    expect(await res.json()).toEqual({ totalTokens: expect.any(Number) });
    expect(server.requests.at(-1)!.route).toBe('gemini_count_tokens');
  });

  it('LIMIT is a Google-style 429 RESOURCE_EXHAUSTED with retry-after; FAIL500 a 500 INTERNAL', async () => {
    const limit = await post(streamUrl(), { contents: [user('LIMIT please')] });
    expect(limit.status).toBe(429);
    expect(limit.headers.get('retry-after')).toBe('3600');
    expect(await limit.json()).toMatchObject({ error: { code: 429, status: 'RESOURCE_EXHAUSTED' } });
    const fail = await post(streamUrl(), { contents: [user('FAIL500 please')] });
    expect(fail.status).toBe(500);
    expect(await fail.json()).toMatchObject({ error: { code: 500, status: 'INTERNAL' } });
  });

  it('SLOW streams its chunks apart in time', async () => {
    const { events } = await postSse(streamUrl(), { contents: [user('SLOW one')] });
    expect(textOf(events)).toBe('ACK SLOW one tick2 tick3');
    expect(events.at(-1)!.at - events[0]!.at).toBeGreaterThanOrEqual(150);
  });

  it('other methods under /v1beta/models are not found', async () => {
    const res = await post(`${server.url}/v1beta/models/gemini-2.5-flash:embedContent`, {});
    expect(res.status).toBe(404);
  });
});
