/** Anthropic Messages API: `POST /v1/messages` (Claude Code, Pi's anthropic-messages provider). */
import type { ReplyWriter } from './sse';
import {
  asArray,
  estimateTokens,
  isObj,
  type Json,
  type LastTurn,
  type ParsedRequest,
  randomId,
  type Reply,
  type ReplyContent,
  str,
  stripNoise,
  textOf,
  usageFigures,
} from './triggers';

export function parseAnthropic(body: Json): ParsedRequest {
  const messages = asArray(body.messages).filter(isObj);
  return {
    stream: body.stream === true,
    model: str(body.model) ?? 'claude-fake',
    inputTokens: estimateTokens(body),
    tools: asArray(body.tools)
      .filter(isObj)
      .map((t) => str(t.name) ?? '')
      .filter(Boolean),
    last: lastTurn(messages),
  };
}

function lastTurn(messages: Json[]): LastTurn {
  const final = messages[messages.length - 1];
  if (final && final.role === 'user') {
    const results = asArray(final.content).filter((b) => isObj(b) && b.type === 'tool_result') as Json[];
    const lastResult = results[results.length - 1];
    // After a denied tool call Claude sends the rejected tool_result and the person's next words in
    // one message: the words are what the person asked for.
    const typed = stripNoise(
      asArray(final.content)
        .filter((b) => isObj(b) && b.type === 'text')
        .map((b) => textOf([b]))
        .join('\n'),
    );
    if (lastResult && typed) return { kind: 'user', text: typed };
    if (lastResult) return { kind: 'tool_result', text: textOf(lastResult.content) };
  }
  for (let i = messages.length - 1; i >= 0; i--) {
    const m = messages[i]!;
    if (m.role !== 'user') continue;
    const text = stripNoise(textOf(m.content));
    if (text) return { kind: 'user', text };
  }
  return { kind: 'none' };
}

export function anthropicErrorBody(status: 429 | 500): Json {
  return status === 429
    ? {
        type: 'error',
        error: {
          type: 'rate_limit_error',
          message: "This request would exceed your account's rate limit. (fake server LIMIT)",
        },
      }
    : { type: 'error', error: { type: 'api_error', message: 'Internal server error (fake server FAIL500)' } };
}

function contentBlock(c: ReplyContent, toolId: string): Json {
  return c.kind === 'text'
    ? { type: 'text', text: c.text }
    : { type: 'tool_use', id: toolId, name: c.name, input: c.input };
}

export async function writeAnthropic(
  w: ReplyWriter,
  reply: Reply,
  req: ParsedRequest,
  retryAfter: number,
): Promise<void> {
  if (reply.kind === 'error') {
    const headers: Record<string, string> = { 'request-id': randomId('req_') };
    if (reply.status === 429) {
      headers['retry-after'] = String(retryAfter);
      headers['anthropic-ratelimit-unified-status'] = 'rejected';
    }
    w.json(reply.status, anthropicErrorBody(reply.status), headers);
    return;
  }
  const id = randomId('msg_');
  const toolId = randomId('toolu_');
  const stopReason = reply.kind === 'tool' ? 'tool_use' : 'end_turn';
  const u = usageFigures(reply, req);
  const outputTokens = u.output;
  const usage = {
    input_tokens: u.input,
    output_tokens: outputTokens,
    cache_creation_input_tokens: u.cacheWrite,
    cache_read_input_tokens: u.cacheRead,
  };

  if (!req.stream) {
    await w.pause(reply.waitMs);
    if (reply.kind === 'text') await w.wholeReply(reply);
    w.json(200, {
      id,
      type: 'message',
      role: 'assistant',
      model: req.model,
      content: [contentBlock(reply, toolId)],
      stop_reason: stopReason,
      stop_sequence: null,
      usage,
    });
    return;
  }

  w.openStream();
  await w.pause(reply.waitMs);
  w.event('message_start', {
    type: 'message_start',
    message: {
      id,
      type: 'message',
      role: 'assistant',
      model: req.model,
      content: [],
      stop_reason: null,
      stop_sequence: null,
      usage: { ...usage, output_tokens: 1 },
    },
  });
  const start =
    reply.kind === 'text' ? { type: 'text', text: '' } : { type: 'tool_use', id: toolId, name: reply.name, input: {} };
  w.event('content_block_start', { type: 'content_block_start', index: 0, content_block: start });
  w.event('ping', { type: 'ping' });
  if (reply.kind === 'text') {
    for (const [i, chunk] of reply.chunks.entries()) {
      await w.beforeChunk(reply, i);
      w.event('content_block_delta', {
        type: 'content_block_delta',
        index: 0,
        delta: { type: 'text_delta', text: chunk },
      });
    }
  } else {
    const json = JSON.stringify(reply.input);
    const half = Math.ceil(json.length / 2);
    for (const part of [json.slice(0, half), json.slice(half)]) {
      w.event('content_block_delta', {
        type: 'content_block_delta',
        index: 0,
        delta: { type: 'input_json_delta', partial_json: part },
      });
    }
  }
  w.event('content_block_stop', { type: 'content_block_stop', index: 0 });
  w.event('message_delta', {
    type: 'message_delta',
    delta: { stop_reason: stopReason, stop_sequence: null },
    usage: { output_tokens: outputTokens },
  });
  w.event('message_stop', { type: 'message_stop' });
  w.end();
}

export function countTokens(body: Json): Json {
  return { input_tokens: estimateTokens({ system: body.system, messages: body.messages, tools: body.tools }) };
}
