import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type FakeModelServer, startFakeModelServer } from './fake-model-server';
import { get, post, postSse } from './sse-client';
import { waitFor } from '../support/tmux';

let server: FakeModelServer;
let url: string;
beforeAll(async () => {
  server = await startFakeModelServer({ slowChunks: 3, slowMs: 150, waitMs: 1000 });
  url = `${server.url}/v1/messages?beta=true`;
});
afterAll(() => server.close());

const user = (content: unknown) => ({ role: 'user', content });
const heldNow = (n: number) =>
  waitFor(() => server.held() === n, { timeoutMs: 5_000, intervalMs: 20, what: `${n} held replies` });
const BASH_TOOL = { name: 'Bash', description: 'run', input_schema: { type: 'object' } };

describe('fake server: Anthropic Messages', () => {
  it('streams ACK <text> as SSE in the Messages event order, ignoring ?beta=true and <system-reminder> blocks', async () => {
    const { res, events } = await postSse(url, {
      model: 'claude-x',
      stream: true,
      messages: [
        user([
          { type: 'text', text: '<system-reminder>ignore me</system-reminder>' },
          { type: 'text', text: 'hello <system-reminder>x</system-reminder>there' },
        ]),
      ],
    });
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toMatch(/^text\/event-stream/);
    const names = events.map((e) => e.event);
    expect(names[0]).toBe('message_start');
    expect(names.slice(1, 3)).toEqual(['content_block_start', 'ping']);
    expect(names.slice(-3)).toEqual(['content_block_stop', 'message_delta', 'message_stop']);
    for (const e of events) expect(get(e.json, 'type')).toBe(e.event);
    expect(get(events[0]!.json, 'message', 'model')).toBe('claude-x');
    const text = events
      .filter((e) => e.event === 'content_block_delta')
      .map((e) => get(e.json, 'delta', 'text'))
      .join('');
    expect(text).toBe('ACK hello there');
    expect(get(events.find((e) => e.event === 'message_delta')!.json, 'delta', 'stop_reason')).toBe('end_turn');
    expect(server.requests.at(-1)).toMatchObject({ route: 'messages', path: '/v1/messages?beta=true', trigger: 'ack' });
  });

  it('answers non-stream requests with one JSON message', async () => {
    const res = await post(url, { model: 'm', messages: [user('plain json')] });
    expect(res.status).toBe(200);
    const body = await res.json();
    expect(body).toMatchObject({
      type: 'message',
      role: 'assistant',
      stop_reason: 'end_turn',
      content: [{ type: 'text', text: 'ACK plain json' }],
    });
    expect(get(body, 'usage', 'output_tokens')).toBeGreaterThan(0);
  });

  it('answers the last real user message, skipping user turns that are only reminders', async () => {
    const res = await post(url, {
      messages: [
        user('first'),
        { role: 'assistant', content: 'ACK first' },
        user('second'),
        { role: 'assistant', content: 'x' },
        user([{ type: 'text', text: '<system-reminder>only noise</system-reminder>' }]),
      ],
    });
    expect(get(await res.json(), 'content', 0, 'text')).toBe('ACK second');
  });

  it('acknowledges a tool_result with its first 200 characters', async () => {
    const long = 'r'.repeat(300);
    const res = await post(url, {
      tools: [BASH_TOOL],
      messages: [
        user('RUN: echo hi'),
        { role: 'assistant', content: [{ type: 'tool_use', id: 't1', name: 'Bash', input: { command: 'echo hi' } }] },
        user([{ type: 'tool_result', tool_use_id: 't1', content: [{ type: 'text', text: long }] }]),
      ],
    });
    expect(get(await res.json(), 'content', 0, 'text')).toBe(`ACK tool result: ${'r'.repeat(200)}`);
    expect(server.requests.at(-1)!.trigger).toBe('tool_result');
  });

  it('turns RUN: <cmd> into a streamed Bash tool_use {command, description} when Bash is offered', async () => {
    const { events } = await postSse(url, {
      stream: true,
      tools: [{ name: 'Read' }, BASH_TOOL],
      messages: [user('RUN: echo probe > out.txt')],
    });
    const start = events.find((e) => e.event === 'content_block_start')!;
    expect(get(start.json, 'content_block')).toMatchObject({ type: 'tool_use', name: 'Bash', input: {} });
    const parts = events.filter((e) => e.event === 'content_block_delta').map((e) => get(e.json, 'delta'));
    expect(parts.length).toBe(2);
    for (const p of parts) expect(get(p, 'type')).toBe('input_json_delta');
    const input = JSON.parse(parts.map((p) => get(p, 'partial_json')).join(''));
    expect(input.command).toBe('echo probe > out.txt');
    expect(typeof input.description).toBe('string');
    expect(get(events.find((e) => e.event === 'message_delta')!.json, 'delta', 'stop_reason')).toBe('tool_use');
  });

  it('answers RUN: with plain text when the request offers no shell tool', async () => {
    const res = await post(url, { tools: [{ name: 'Read' }], messages: [user('RUN: ls')] });
    expect(get(await res.json(), 'content', 0)).toEqual({ type: 'text', text: 'ACK RUN: ls' });
  });

  it('LIMIT answers 429 with retry-after, anthropic-ratelimit-unified-status: rejected and a rate_limit_error body', async () => {
    const res = await post(url, { stream: true, messages: [user('please LIMIT now')] });
    expect(res.status).toBe(429);
    expect(res.headers.get('retry-after')).toBe('3600');
    expect(res.headers.get('anthropic-ratelimit-unified-status')).toBe('rejected');
    expect(await res.json()).toMatchObject({ type: 'error', error: { type: 'rate_limit_error' } });
    expect(server.requests.at(-1)!.trigger).toBe('limit');
  });

  it('FAIL500 answers 500 with an api_error body', async () => {
    const res = await post(url, { stream: true, messages: [user('FAIL500')] });
    expect(res.status).toBe(500);
    expect(await res.json()).toMatchObject({ type: 'error', error: { type: 'api_error' } });
  });

  it('SLOW streams the configured number of chunks, the configured time apart', async () => {
    const { events } = await postSse(url, { stream: true, messages: [user('go SLOW')] });
    const deltas = events.filter((e) => e.event === 'content_block_delta');
    expect(deltas.map((e) => get(e.json, 'delta', 'text'))).toEqual(['ACK go SLOW', ' tick2', ' tick3']);
    expect(deltas[2]!.at - deltas[0]!.at).toBeGreaterThanOrEqual(280);
  });

  it('HOLD streams as SLOW, then holds its last chunk until release(); a reply sent whole waits too', async () => {
    const streamed = postSse(url, { stream: true, messages: [user('go HOLD')] });
    const whole = post(url, { messages: [user('whole HOLD')] }).then((r) => r.json());
    await heldNow(2);
    // Held well past the stream's own pace (3 chunks, 150 ms apart), and still open.
    await new Promise((r) => setTimeout(r, 600));
    expect(server.held()).toBe(2);
    const releasedAt = Date.now();
    server.release();
    const { events } = await streamed;
    const deltas = events.filter((e) => e.event === 'content_block_delta');
    expect(deltas.map((e) => get(e.json, 'delta', 'text'))).toEqual(['ACK go HOLD', ' tick2', ' tick3']);
    expect(deltas[2]!.at - deltas[1]!.at).toBeGreaterThanOrEqual(600);
    // The log knows when each held reply was over: after the release.
    const heldLog = server.requests.filter((r) => r.trigger === 'hold');
    await waitFor(() => heldLog.every((r) => server.endedAt(r) !== undefined), {
      timeoutMs: 5_000,
      what: 'both held replies over',
    });
    for (const r of heldLog) expect(server.endedAt(r)!).toBeGreaterThanOrEqual(releasedAt);
    expect(get(await whole, 'content', 0, 'text')).toBe('ACK whole HOLD tick2 tick3');
    expect(Date.now() - releasedAt).toBeLessThan(2_000);
    // Released, the gate stays open until hold(): a later HOLD reply streams at SLOW's pace.
    const later = await postSse(url, { stream: true, messages: [user('later HOLD')] });
    expect(later.events.filter((e) => e.event === 'content_block_delta')).toHaveLength(3);
    server.hold();
    void postSse(url, { stream: true, messages: [user('held again HOLD')] }).catch(() => undefined);
    await heldNow(1);
    server.release();
    await heldNow(0);
    expect(server.requests.at(-1)).toMatchObject({ trigger: 'hold' });
  });

  it('WAIT HOLD holds its first chunk, after the wait, until release()', async () => {
    server.hold();
    const sentAt = Date.now();
    const streamed = postSse(url, { stream: true, messages: [user('first WAIT HOLD')] });
    await heldNow(1);
    await new Promise((r) => setTimeout(r, 300));
    const releasedAt = Date.now();
    server.release();
    const { events } = await streamed;
    const deltas = events.filter((e) => e.event === 'content_block_delta');
    expect(deltas[0]!.json).toMatchObject({ delta: { text: 'ACK first WAIT HOLD' } });
    expect(deltas.length).toBe(3);
    // No text came before the gate opened; the rest at the SLOW pace after it.
    expect(sentAt + deltas[0]!.at).toBeGreaterThanOrEqual(releasedAt);
    expect(deltas[2]!.at - deltas[0]!.at).toBeGreaterThanOrEqual(280);
    expect(server.requests.at(-1)).toMatchObject({ trigger: 'hold+wait' });
  });

  it('WAIT sends the stream headers at once, then nothing until the wait is over', async () => {
    const t0 = Date.now();
    const res = await post(url, { stream: true, messages: [user('WAIT for it')] });
    const headersAfter = Date.now() - t0;
    expect(res.status).toBe(200);
    expect(headersAfter).toBeLessThan(800);
    const reader = res.body!.getReader();
    await reader.read();
    expect(Date.now() - t0).toBeGreaterThanOrEqual(990);
    await reader.cancel();
  });

  it('count_tokens answers input_tokens', async () => {
    const res = await post(`${server.url}/v1/messages/count_tokens`, { messages: [user('count me')] });
    expect(res.status).toBe(200);
    expect(get(await res.json(), 'input_tokens')).toBeGreaterThan(0);
    expect(server.requests.at(-1)).toMatchObject({ route: 'count_tokens', trigger: 'none' });
  });
});

describe('fake server: LIMIT retry-after is configurable', () => {
  it('sends the configured retry-after', async () => {
    const s = await startFakeModelServer({ retryAfter: 2 });
    try {
      const res = await post(`${s.url}/v1/messages`, { messages: [user('LIMIT')] });
      expect(res.status).toBe(429);
      expect(res.headers.get('retry-after')).toBe('2');
    } finally {
      await s.close();
    }
  });
});
