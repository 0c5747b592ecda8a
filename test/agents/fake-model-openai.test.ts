import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type FakeModelServer, startFakeModelServer } from './fake-model-server';
import { get, post, postSse } from './sse-client';

let server: FakeModelServer;
beforeAll(async () => {
  server = await startFakeModelServer({ slowChunks: 3, slowMs: 100, waitMs: 300 });
});
afterAll(() => server.close());

const CODEX_TOOLS = [
  { type: 'function', name: 'exec_command', parameters: {} },
  { type: 'function', name: 'apply_patch', parameters: {} },
];
const PI_TOOLS = ['read', 'bash', 'edit', 'write'].map((name) => ({
  type: 'function',
  function: { name, parameters: {} },
}));
const inputText = (role: string, text: string) => ({ type: 'message', role, content: [{ type: 'input_text', text }] });

describe('fake server: OpenAI Responses', () => {
  const url = () => `${server.url}/v1/responses`;

  it('streams text with the Responses event sequence, ending in response.completed with usage', async () => {
    const { res, events } = await postSse(url(), {
      model: 'fake-model',
      stream: true,
      input: [
        inputText('user', '<environment_context>\n  <cwd>/x</cwd>\n</environment_context>'),
        inputText('user', 'hello codex'),
      ],
    });
    expect(res.status).toBe(200);
    expect(events.map((e) => e.event)).toEqual([
      'response.created',
      'response.in_progress',
      'response.output_item.added',
      'response.content_part.added',
      'response.output_text.delta',
      'response.output_text.delta',
      'response.output_text.done',
      'response.content_part.done',
      'response.output_item.done',
      'response.completed',
    ]);
    const seq = events.map((e) => get(e.json, 'sequence_number'));
    expect(seq).toEqual(seq.map((_, i) => i));
    const text = events
      .filter((e) => e.event === 'response.output_text.delta')
      .map((e) => get(e.json, 'delta'))
      .join('');
    expect(text).toBe('ACK hello codex');
    const done = events.at(-1)!.json;
    expect(get(done, 'response', 'status')).toBe('completed');
    expect(get(done, 'response', 'output', 0, 'content', 0, 'text')).toBe('ACK hello codex');
    const usage = get(done, 'response', 'usage') as Record<string, unknown>;
    expect(Object.keys(usage).sort()).toEqual([
      'input_tokens',
      'input_tokens_details',
      'output_tokens',
      'output_tokens_details',
      'total_tokens',
    ]);
    expect(get(usage, 'input_tokens_details', 'cached_tokens')).toBe(0);
    expect(get(usage, 'output_tokens_details', 'reasoning_tokens')).toBe(0);
    expect(usage.total_tokens).toBe((usage.input_tokens as number) + (usage.output_tokens as number));
  });

  it('answers non-stream requests with one completed response object', async () => {
    const res = await post(url(), { input: 'just a string' });
    const body = await res.json();
    expect(body).toMatchObject({
      object: 'response',
      status: 'completed',
      output: [{ type: 'message', role: 'assistant', content: [{ type: 'output_text', text: 'ACK just a string' }] }],
    });
  });

  it('RUN: calls exec_command {cmd, sandbox_permissions: "require_escalated", justification} when Codex offers it', async () => {
    const { events } = await postSse(url(), {
      stream: true,
      tools: CODEX_TOOLS,
      input: [inputText('user', 'RUN: touch x')],
    });
    expect(events.map((e) => e.event)).toContain('response.function_call_arguments.done');
    const item = get(events.find((e) => e.event === 'response.output_item.done')!.json, 'item') as Record<
      string,
      unknown
    >;
    expect(item).toMatchObject({ type: 'function_call', name: 'exec_command' });
    expect(typeof item.call_id).toBe('string');
    const args = JSON.parse(item.arguments as string);
    expect(args).toMatchObject({ cmd: 'touch x', sandbox_permissions: 'require_escalated' });
    expect(typeof args.justification).toBe('string');
    expect(get(events.at(-1)!.json, 'response', 'output', 0, 'name')).toBe('exec_command');
  });

  it('RUN: with SANDBOXED leaves sandbox_permissions out', async () => {
    const res = await post(url(), { tools: CODEX_TOOLS, input: [inputText('user', 'RUN: ls SANDBOXED')] });
    const args = JSON.parse(get(await res.json(), 'output', 0, 'arguments') as string);
    expect(args.cmd).toBe('ls');
    expect(args).not.toHaveProperty('sandbox_permissions');
  });

  it('acknowledges a function_call_output', async () => {
    const res = await post(url(), {
      tools: CODEX_TOOLS,
      input: [
        inputText('user', 'RUN: ls'),
        { type: 'function_call', call_id: 'c1', name: 'exec_command', arguments: '{}' },
        { type: 'function_call_output', call_id: 'c1', output: 'file-a\nfile-b' },
      ],
    });
    expect(get(await res.json(), 'output', 0, 'content', 0, 'text')).toBe('ACK tool result: file-a\nfile-b');
  });

  it('LIMIT answers 429 with retry-after and error.type usage_limit_reached', async () => {
    const res = await post(url(), { stream: true, input: [inputText('user', 'LIMIT')] });
    expect(res.status).toBe(429);
    expect(res.headers.get('retry-after')).toBe('3600');
    expect(get(await res.json(), 'error', 'type')).toBe('usage_limit_reached');
  });

  it('FAIL500 answers 500', async () => {
    const res = await post(url(), { stream: true, input: [inputText('user', 'FAIL500')] });
    expect(res.status).toBe(500);
    await res.body?.cancel();
  });
});

describe('fake server: OpenAI Chat Completions', () => {
  const url = () => `${server.url}/v1/chat/completions`;

  it('streams chunks ending in [DONE], with a usage chunk only when stream_options.include_usage', async () => {
    const withUsage = await postSse(url(), {
      stream: true,
      stream_options: { include_usage: true },
      messages: [
        { role: 'system', content: 's' },
        { role: 'user', content: 'hi pi' },
      ],
    });
    const data = withUsage.events.map((e) => e.data);
    expect(data.at(-1)).toBe('[DONE]');
    const chunks = withUsage.events.slice(0, -1).map((e) => e.json!);
    expect(get(chunks[0], 'choices', 0, 'delta')).toEqual({ role: 'assistant', content: '' });
    const text = chunks.map((c) => get(c, 'choices', 0, 'delta', 'content') ?? '').join('');
    expect(text).toBe('ACK hi pi');
    expect(chunks.map((c) => get(c, 'choices', 0, 'finish_reason')).filter(Boolean)).toEqual(['stop']);
    const usage = chunks.at(-1)!;
    expect(get(usage, 'choices')).toEqual([]);
    expect(get(usage, 'usage', 'total_tokens')).toBeGreaterThan(0);

    const without = await postSse(url(), { stream: true, messages: [{ role: 'user', content: 'hi pi' }] });
    expect(without.events.some((e) => e.json && 'usage' in e.json)).toBe(false);
    expect(without.events.at(-1)!.data).toBe('[DONE]');
  });

  it('RUN: calls bash {command} when Pi offers its tools, as tool_calls deltas with finish_reason tool_calls', async () => {
    const { events } = await postSse(url(), {
      stream: true,
      tools: PI_TOOLS,
      messages: [{ role: 'user', content: [{ type: 'text', text: 'RUN: echo pi-ok' }] }],
    });
    const deltas = events
      .filter((e) => e.json)
      .map((e) => get(e.json, 'choices', 0, 'delta', 'tool_calls', 0))
      .filter(Boolean);
    expect(deltas[0]).toMatchObject({ index: 0, type: 'function', function: { name: 'bash', arguments: '' } });
    expect(typeof get(deltas[0], 'id')).toBe('string');
    const args = deltas.map((d) => get(d, 'function', 'arguments')).join('');
    expect(JSON.parse(args)).toEqual({ command: 'echo pi-ok' });
    expect(events.map((e) => get(e.json, 'choices', 0, 'finish_reason')).filter(Boolean)).toEqual(['tool_calls']);
  });

  it('acknowledges a role:"tool" message', async () => {
    const res = await post(url(), {
      messages: [
        { role: 'user', content: 'RUN: ls' },
        { role: 'assistant', content: null, tool_calls: [] },
        { role: 'tool', tool_call_id: 'c', content: 'pi-tool-ok\n' },
      ],
    });
    const body = await res.json();
    expect(get(body, 'object')).toBe('chat.completion');
    expect(get(body, 'choices', 0, 'message', 'content')).toBe('ACK tool result: pi-tool-ok\n');
  });

  it('LIMIT answers 429 with retry-after; FAIL500 answers 500', async () => {
    const limit = await post(url(), { stream: true, messages: [{ role: 'user', content: 'LIMIT' }] });
    expect(limit.status).toBe(429);
    expect(limit.headers.get('retry-after')).toBe('3600');
    expect(get(await limit.json(), 'error', 'message')).toMatch(/Rate limit/);
    const fail = await post(url(), { messages: [{ role: 'user', content: 'FAIL500' }] });
    expect(fail.status).toBe(500);
    await fail.body?.cancel();
  });

  it('SLOW spaces its chunks by the configured delay', async () => {
    const { events } = await postSse(url(), { stream: true, messages: [{ role: 'user', content: 'SLOW' }] });
    const content = events.filter(
      (e) =>
        typeof get(e.json, 'choices', 0, 'delta', 'content') === 'string' &&
        get(e.json, 'choices', 0, 'delta', 'content') !== '',
    );
    expect(content.map((e) => get(e.json, 'choices', 0, 'delta', 'content'))).toEqual(['ACK SLOW', ' tick2', ' tick3']);
    expect(content[2]!.at - content[0]!.at).toBeGreaterThanOrEqual(180);
  });
});

describe('fake server: shell tool pick by what the client offers', () => {
  const ask = async (tools: unknown[]) => {
    const res = await post(`${server.url}/v1/messages`, { tools, messages: [{ role: 'user', content: 'RUN: id' }] });
    return get(await res.json(), 'content', 0) as Record<string, unknown>;
  };
  it('Claude Bash, Pi bash, and plain text when nothing fits', async () => {
    expect(await ask([{ name: 'Glob' }, { name: 'Bash' }])).toMatchObject({
      type: 'tool_use',
      name: 'Bash',
      input: { command: 'id' },
    });
    expect(await ask([{ name: 'read' }, { name: 'bash' }])).toMatchObject({
      type: 'tool_use',
      name: 'bash',
      input: { command: 'id' },
    });
    expect(await ask([{ name: 'read' }])).toEqual({ type: 'text', text: 'ACK RUN: id' });
    expect(await ask([])).toEqual({ type: 'text', text: 'ACK RUN: id' });
  });
});
