/** OpenAI Responses API: `POST /v1/responses` (Codex, `wire_api = "responses"`). */
import type { ReplyWriter } from './sse';
import {
  asArray,
  estimateTokens,
  isObj,
  type Json,
  type LastTurn,
  type ParsedRequest,
  randomId,
  type RateLimitFigures,
  type Reply,
  str,
  stripNoise,
  textOf,
  usageFigures,
} from './triggers';

export function parseResponses(body: Json): ParsedRequest {
  const input = body.input;
  const items: Json[] =
    typeof input === 'string' ? [{ type: 'message', role: 'user', content: input }] : asArray(input).filter(isObj);
  return {
    stream: body.stream === true,
    model: str(body.model) ?? 'fake-model',
    inputTokens: estimateTokens({ instructions: body.instructions, input }),
    tools: asArray(body.tools)
      .filter(isObj)
      .map((t) => str(t.name) ?? (isObj(t.function) ? str(t.function.name) : undefined) ?? '')
      .filter(Boolean),
    last: lastTurn(items),
  };
}

function lastTurn(items: Json[]): LastTurn {
  const final = items[items.length - 1];
  // function_call_output, custom_tool_call_output, local_shell_call_output, ...
  if (final && typeof final.type === 'string' && final.type.endsWith('_call_output')) {
    const out = final.output;
    const text = typeof out === 'string' ? out : isObj(out) ? (str(out.content) ?? textOf(out.content)) : textOf(out);
    return { kind: 'tool_result', text };
  }
  for (let i = items.length - 1; i >= 0; i--) {
    const m = items[i]!;
    if (m.role !== 'user' || (m.type !== undefined && m.type !== 'message')) continue;
    const text = stripNoise(textOf(m.content));
    if (text) return { kind: 'user', text };
  }
  return { kind: 'none' };
}

export function responsesErrorBody(status: 429 | 500): Json {
  return status === 429
    ? {
        error: {
          type: 'usage_limit_reached',
          code: 'usage_limit_reached',
          message: 'You have hit your usage limit (fake server LIMIT)',
        },
      }
    : { error: { type: 'server_error', code: 'server_error', message: 'Internal server error (fake server FAIL500)' } };
}

/** The headers Codex reads a plan's rate-limit windows from (its default limit id, `codex`). */
export function rateLimitHeaders(limits: RateLimitFigures | undefined): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [name, w] of [
    ['primary', limits?.primary],
    ['secondary', limits?.secondary],
  ] as const) {
    if (!w) continue;
    out[`x-codex-${name}-used-percent`] = String(w.usedPercent);
    out[`x-codex-${name}-window-minutes`] = String(w.windowMinutes);
    out[`x-codex-${name}-reset-at`] = String(w.resetAt);
  }
  return out;
}

export async function writeResponses(
  w: ReplyWriter,
  reply: Reply,
  req: ParsedRequest,
  retryAfter: number,
): Promise<void> {
  if (reply.kind === 'error') {
    const headers: Record<string, string> = reply.status === 429 ? { 'retry-after': String(retryAfter) } : {};
    w.json(reply.status, responsesErrorBody(reply.status), headers);
    return;
  }
  const responseId = randomId('resp_');
  const createdAt = Math.floor(Date.now() / 1000);
  // `input_tokens` counts the cached ones too; `cached_tokens` is their part of it.
  const u = usageFigures(reply, req);
  const usage = {
    input_tokens: u.input,
    input_tokens_details: { cached_tokens: u.cacheRead },
    output_tokens: u.output,
    output_tokens_details: { reasoning_tokens: 0 },
    total_tokens: u.input + u.output,
  };
  const itemId = randomId(reply.kind === 'text' ? 'msg_' : 'fc_');
  const callId = randomId('call_');
  const args = reply.kind === 'tool' ? JSON.stringify(reply.input) : '';
  const textPart = (text: string): Json => ({ type: 'output_text', text, annotations: [] });
  const doneItem: Json =
    reply.kind === 'text'
      ? { id: itemId, type: 'message', status: 'completed', role: 'assistant', content: [textPart(reply.text)] }
      : { id: itemId, type: 'function_call', status: 'completed', call_id: callId, name: reply.name, arguments: args };
  const response = (status: string, output: Json[], withUsage: boolean): Json => ({
    id: responseId,
    object: 'response',
    created_at: createdAt,
    status,
    model: req.model,
    output,
    ...(withUsage ? { usage } : {}),
  });

  const limitHeaders = rateLimitHeaders(reply.rateLimits);
  if (!req.stream) {
    await w.pause(reply.waitMs);
    if (reply.kind === 'text') await w.wholeReply(reply);
    w.json(200, response('completed', [doneItem], true), limitHeaders);
    return;
  }

  let seq = 0;
  const send = (type: string, data: Json): void => w.event(type, { type, sequence_number: seq++, ...data });
  w.openStream(limitHeaders);
  await w.pause(reply.waitMs);
  send('response.created', { response: response('in_progress', [], false) });
  send('response.in_progress', { response: response('in_progress', [], false) });
  const at = { output_index: 0 };
  if (reply.kind === 'text') {
    send('response.output_item.added', {
      ...at,
      item: { id: itemId, type: 'message', status: 'in_progress', role: 'assistant', content: [] },
    });
    const part = { item_id: itemId, ...at, content_index: 0 };
    send('response.content_part.added', { ...part, part: textPart('') });
    for (const [i, chunk] of reply.chunks.entries()) {
      await w.beforeChunk(reply, i);
      send('response.output_text.delta', { ...part, delta: chunk });
    }
    send('response.output_text.done', { ...part, text: reply.text });
    send('response.content_part.done', { ...part, part: textPart(reply.text) });
  } else {
    send('response.output_item.added', {
      ...at,
      item: {
        id: itemId,
        type: 'function_call',
        status: 'in_progress',
        call_id: callId,
        name: reply.name,
        arguments: '',
      },
    });
    send('response.function_call_arguments.delta', { item_id: itemId, ...at, delta: args });
    send('response.function_call_arguments.done', { item_id: itemId, ...at, arguments: args });
  }
  send('response.output_item.done', { ...at, item: doneItem });
  send('response.completed', { response: response('completed', [doneItem], true) });
  w.end();
}
