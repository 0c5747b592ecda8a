/** OpenAI Chat Completions: `POST /v1/chat/completions` (Pi's openai-completions provider). */
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
  str,
  stripNoise,
  textOf,
  usageFigures,
} from './triggers';

export interface ParsedChatRequest extends ParsedRequest {
  includeUsage: boolean;
}

export function parseChat(body: Json): ParsedChatRequest {
  const messages = asArray(body.messages).filter(isObj);
  return {
    stream: body.stream === true,
    includeUsage: isObj(body.stream_options) && body.stream_options.include_usage === true,
    model: str(body.model) ?? 'fake-model',
    inputTokens: estimateTokens(messages),
    tools: asArray(body.tools)
      .filter(isObj)
      .map((t) => (isObj(t.function) ? str(t.function.name) : str(t.name)) ?? '')
      .filter(Boolean),
    last: lastTurn(messages),
  };
}

function lastTurn(messages: Json[]): LastTurn {
  const final = messages[messages.length - 1];
  if (final && final.role === 'tool') return { kind: 'tool_result', text: textOf(final.content) };
  for (let i = messages.length - 1; i >= 0; i--) {
    const m = messages[i]!;
    if (m.role !== 'user') continue;
    const text = stripNoise(textOf(m.content));
    if (text) return { kind: 'user', text };
  }
  return { kind: 'none' };
}

export function chatErrorBody(status: 429 | 500): Json {
  return status === 429
    ? {
        error: {
          type: 'rate_limit_exceeded',
          code: 'rate_limit_exceeded',
          message: 'Rate limit reached (fake server LIMIT)',
        },
      }
    : { error: { type: 'server_error', code: 'server_error', message: 'Internal server error (fake server FAIL500)' } };
}

export async function writeChat(
  w: ReplyWriter,
  reply: Reply,
  req: ParsedChatRequest,
  retryAfter: number,
): Promise<void> {
  if (reply.kind === 'error') {
    const headers: Record<string, string> = reply.status === 429 ? { 'retry-after': String(retryAfter) } : {};
    w.json(reply.status, chatErrorBody(reply.status), headers);
    return;
  }
  const id = randomId('chatcmpl-');
  const created = Math.floor(Date.now() / 1000);
  const u = usageFigures(reply, req);
  const usage = {
    prompt_tokens: u.input,
    completion_tokens: u.output,
    total_tokens: u.input + u.output,
    // The cached part of prompt_tokens, as OpenAI reports it (only when a prompt named figures).
    ...(reply.usage ? { prompt_tokens_details: { cached_tokens: u.cacheRead } } : {}),
  };
  const callId = randomId('call_');
  const args = reply.kind === 'tool' ? JSON.stringify(reply.input) : '';
  const finish = reply.kind === 'tool' ? 'tool_calls' : 'stop';

  if (!req.stream) {
    await w.pause(reply.waitMs);
    if (reply.kind === 'text') await w.wholeReply(reply);
    const message =
      reply.kind === 'text'
        ? { role: 'assistant', content: reply.text }
        : {
            role: 'assistant',
            content: null,
            tool_calls: [{ id: callId, type: 'function', function: { name: reply.name, arguments: args } }],
          };
    w.json(200, {
      id,
      object: 'chat.completion',
      created,
      model: req.model,
      choices: [{ index: 0, message, finish_reason: finish }],
      usage,
    });
    return;
  }

  const chunk = (delta: Json, finishReason: string | null = null): Json => ({
    id,
    object: 'chat.completion.chunk',
    created,
    model: req.model,
    choices: [{ index: 0, delta, finish_reason: finishReason }],
  });
  w.openStream();
  await w.pause(reply.waitMs);
  w.event(undefined, chunk({ role: 'assistant', content: '' }));
  if (reply.kind === 'text') {
    for (const [i, piece] of reply.chunks.entries()) {
      await w.beforeChunk(reply, i);
      w.event(undefined, chunk({ content: piece }));
    }
  } else {
    w.event(
      undefined,
      chunk({
        tool_calls: [{ index: 0, id: callId, type: 'function', function: { name: reply.name, arguments: '' } }],
      }),
    );
    w.event(undefined, chunk({ tool_calls: [{ index: 0, function: { arguments: args } }] }));
  }
  w.event(undefined, chunk({}, finish));
  if (req.includeUsage)
    w.event(undefined, { id, object: 'chat.completion.chunk', created, model: req.model, choices: [], usage });
  w.event(undefined, '[DONE]');
  w.end();
}
