/**
 * Gemini API (Gemini CLI, docs/agent-clis-more.md §2.1): `POST /v1beta/models/<m>:streamGenerateContent?alt=sse`
 * (SSE, each event `data: {candidates:[…]}`), `…:generateContent` (one JSON body) and `…:countTokens`.
 * A tool call is a `functionCall` part; a tool result comes back as a `functionResponse` part in a user turn.
 */
import type { ReplyWriter } from './sse';
import {
  asArray,
  estimateTokens,
  isObj,
  type Json,
  type LastTurn,
  type ParsedRequest,
  type Reply,
  str,
  stripNoise,
  usageFigures,
} from './triggers';

/** `/v1beta/models/<model>:<method>` → the model and the method, or undefined for any other path. */
export function geminiPath(pathname: string): { model: string; method: string } | undefined {
  const m = /^\/v1(?:beta|alpha)?\/models\/([^/:]+):([A-Za-z]+)$/.exec(pathname);
  return m ? { model: decodeURIComponent(m[1]!), method: m[2]! } : undefined;
}

export const GEMINI_ROUTES: Record<string, string> = {
  streamGenerateContent: 'gemini_stream',
  generateContent: 'gemini_generate',
  countTokens: 'gemini_count_tokens',
};

function partsOf(content: unknown): Json[] {
  return isObj(content) ? asArray(content.parts).filter(isObj) : [];
}

/** The request's conversation: the last `user` content, as text or as the tool result it carries. */
function lastTurn(contents: Json[]): LastTurn {
  const final = contents[contents.length - 1];
  const response = partsOf(final).find((p) => isObj(p.functionResponse));
  if (final && final.role !== 'model' && response) {
    const r = response.functionResponse as Json;
    return { kind: 'tool_result', text: JSON.stringify(r.response ?? {}) };
  }
  for (let i = contents.length - 1; i >= 0; i--) {
    const c = contents[i]!;
    if (c.role === 'model') continue;
    const text = stripNoise(
      partsOf(c)
        .map((p) => str(p.text) ?? '')
        .filter(Boolean)
        .join('\n'),
    );
    if (text) return { kind: 'user', text };
  }
  return { kind: 'none' };
}

export function parseGemini(body: Json, model = 'gemini-fake', stream = false): ParsedRequest {
  const contents = asArray(body.contents).filter(isObj);
  return {
    stream,
    model,
    inputTokens: estimateTokens(contents),
    tools: asArray(body.tools)
      .filter(isObj)
      .flatMap((t) => asArray(t.functionDeclarations).filter(isObj))
      .map((d) => str(d.name) ?? '')
      .filter(Boolean),
    last: lastTurn(contents),
  };
}

/** Google API error bodies, as the Gemini API sends them. */
export function geminiErrorBody(status: 429 | 500): Json {
  return status === 429
    ? {
        error: {
          code: 429,
          message: 'Resource has been exhausted (e.g. check quota). (fake server LIMIT)',
          status: 'RESOURCE_EXHAUSTED',
        },
      }
    : { error: { code: 500, message: 'An internal error has occurred. (fake server FAIL500)', status: 'INTERNAL' } };
}

export function geminiCountTokens(body: Json): Json {
  return { totalTokens: estimateTokens(body.contents ?? body.generateContentRequest ?? body) };
}

export async function writeGemini(w: ReplyWriter, reply: Reply, req: ParsedRequest, retryAfter: number): Promise<void> {
  if (reply.kind === 'error') {
    const headers: Record<string, string> = reply.status === 429 ? { 'retry-after': String(retryAfter) } : {};
    w.json(reply.status, geminiErrorBody(reply.status), headers);
    return;
  }
  const u = usageFigures(reply, req);
  const usageMetadata = {
    promptTokenCount: u.input,
    candidatesTokenCount: u.output,
    totalTokenCount: u.input + u.output,
    // The cached part of promptTokenCount (only when a prompt named figures).
    ...(reply.usage ? { cachedContentTokenCount: u.cacheRead } : {}),
  };
  const candidate = (parts: Json[], finishReason?: string): Json => ({
    candidates: [{ content: { role: 'model', parts }, index: 0, ...(finishReason ? { finishReason } : {}) }],
    modelVersion: req.model,
  });
  const toolPart = (): Json => ({
    functionCall: { name: reply.kind === 'tool' ? reply.name : '', args: reply.kind === 'tool' ? reply.input : {} },
  });

  if (!req.stream) {
    await w.pause(reply.waitMs);
    if (reply.kind === 'text') await w.wholeReply(reply);
    const parts = reply.kind === 'text' ? [{ text: reply.text }] : [toolPart()];
    w.json(200, { ...candidate(parts, 'STOP'), usageMetadata });
    return;
  }
  w.openStream();
  await w.pause(reply.waitMs);
  if (reply.kind === 'text') {
    for (const [i, piece] of reply.chunks.entries()) {
      await w.beforeChunk(reply, i);
      const last = i === reply.chunks.length - 1;
      w.event(undefined, {
        ...candidate([{ text: piece }], last ? 'STOP' : undefined),
        ...(last ? { usageMetadata } : {}),
      });
    }
  } else {
    w.event(undefined, { ...candidate([toolPart()], 'STOP'), usageMetadata });
  }
  w.end();
}
