/**
 * A fake model server for tests against the real agent CLIs (docs/agent-clis.md §1).
 * Plain node:http, bound to 127.0.0.1 only. Replies are keyed on the last real user message:
 * `ACK <text>` by default, tool results → `ACK tool result: …`, `RUN: <cmd>` → a shell tool call,
 * `SLOW`, `HOLD` (SLOW whose last chunk, or with WAIT its first, waits for `release()`), `WAIT`, `LIMIT` (429) and `FAIL500` (500);
 * `USAGE:<input>:<output>[:<cacheRead>[:<cacheWrite>]]` makes the reply report exactly those token figures;
 * `RATELIMIT:<used%>:<minutes>:<resetAt>[:…]` makes a Responses reply carry Codex's rate-limit headers.
 */
import { appendFileSync } from 'node:fs';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { countTokens, parseAnthropic, writeAnthropic } from './fake-model/anthropic';
import { parseChat, writeChat } from './fake-model/chat';
import { GEMINI_ROUTES, geminiCountTokens, geminiPath, parseGemini, writeGemini } from './fake-model/gemini';
import { parseResponses, writeResponses } from './fake-model/responses';
import { Gate } from './fake-model/gate';
import { ReplyWriter } from './fake-model/sse';
import {
  decideReply,
  isObj,
  type Json,
  type ParsedRequest,
  type RateLimitFigures,
  type Reply,
  type ReplyTimings,
  type UsageFigures,
} from './fake-model/triggers';

export interface FakeModelServer {
  /** http://127.0.0.1:PORT */
  url: string;
  port: number;
  requests: FakeRequestLog[];
  /** When the reply to a logged request was over (its response closed), once it is. */
  endedAt(request: FakeRequestLog): number | undefined;
  /** HOLD replies waiting before their last chunk now. */
  held(): number;
  /** Lets every HOLD reply finish (those waiting and any later one), until `hold()`. */
  release(): void;
  /** Makes later HOLD replies wait again (the server starts holding). */
  hold(): void;
  close(): Promise<void>;
}

export interface FakeRequestLog {
  at: number;
  method: string;
  /** As sent, query included (Claude sends `/v1/messages?beta=true`). */
  path: string;
  remoteAddress: string;
  host: string | undefined;
  userAgent: string | undefined;
  /** messages | count_tokens | responses | chat_completions | gemini_stream | gemini_generate | gemini_count_tokens | models | model | not_found */
  route: string;
  /** ack | tool_result | run | slow | hold | wait | limit | fail500 (modifiers joined by `+`, e.g. `slow+wait`); `none` for non-model routes; `bad_json`. */
  trigger: string;
  /** The usage figures a `USAGE:` prompt named and the reply reported (absent when estimated). */
  usage?: UsageFigures;
  /** The rate-limit windows a `RATELIMIT:` prompt named (sent as headers on the Responses API only). */
  rateLimits?: RateLimitFigures;
}

export interface FakeModelServerOptions {
  /** Default 0: a free port. */
  port?: number;
  /** SLOW: number of chunks (default 20). */
  slowChunks?: number;
  /** SLOW: pause between chunks (default 1000 ms). */
  slowMs?: number;
  /** WAIT: silence after the stream opens (default 15000 ms). */
  waitMs?: number;
  /** LIMIT: the `retry-after` header in seconds (default 3600). */
  retryAfter?: number;
  /** Also append every request as a JSON line here. */
  logFile?: string;
}

const MODELS = ['claude-fake', 'fake-model'];

function modelEntry(id: string): Json {
  return {
    id,
    object: 'model',
    type: 'model',
    display_name: id,
    created: 1_700_000_000,
    created_at: '2023-11-14T22:13:20Z',
    owned_by: 'fake',
  };
}

function routeOf(method: string, pathname: string): string {
  const p = pathname.replace(/\/+$/, '');
  if (method === 'POST' && p === '/v1/messages') return 'messages';
  if (method === 'POST' && p === '/v1/messages/count_tokens') return 'count_tokens';
  if (method === 'POST' && p === '/v1/responses') return 'responses';
  if (method === 'POST' && p === '/v1/chat/completions') return 'chat_completions';
  if (method === 'GET' && p === '/v1/models') return 'models';
  if (method === 'GET' && p.startsWith('/v1/models/')) return 'model';
  const g = method === 'POST' ? geminiPath(p) : undefined;
  if (g && GEMINI_ROUTES[g.method]) return GEMINI_ROUTES[g.method]!;
  return 'not_found';
}

function readBody(req: IncomingMessage): Promise<string> {
  return new Promise((resolve, reject) => {
    const parts: Buffer[] = [];
    req.on('data', (c: Buffer) => parts.push(c));
    req.on('end', () => resolve(Buffer.concat(parts).toString('utf8')));
    req.on('error', reject);
  });
}

type ModelRoute = {
  parse: (body: Json) => ParsedRequest;
  write: (w: ReplyWriter, reply: Reply, req: never, retryAfter: number) => Promise<void>;
};

const MODEL_ROUTES: Record<string, ModelRoute> = {
  messages: { parse: parseAnthropic, write: writeAnthropic },
  responses: { parse: parseResponses, write: writeResponses },
  chat_completions: { parse: parseChat, write: writeChat },
};

export async function startFakeModelServer(opts: FakeModelServerOptions = {}): Promise<FakeModelServer> {
  const timings: ReplyTimings = {
    slowChunks: opts.slowChunks ?? 20,
    slowMs: opts.slowMs ?? 1000,
    waitMs: opts.waitMs ?? 15_000,
  };
  const retryAfter = opts.retryAfter ?? 3600;
  const requests: FakeRequestLog[] = [];
  const closing = new AbortController();
  const active = new Set<ServerResponse>();
  const gate = new Gate();
  const ends = new WeakMap<FakeRequestLog, number>();

  const log = (entry: FakeRequestLog): void => {
    requests.push(entry);
    if (opts.logFile) appendFileSync(opts.logFile, `${JSON.stringify(entry)}\n`);
  };

  async function handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const method = req.method ?? 'GET';
    const path = req.url ?? '/';
    const route = routeOf(method, new URL(path, 'http://127.0.0.1').pathname);
    const raw = method === 'POST' ? await readBody(req) : '';
    const entry = (trigger: string): FakeRequestLog => ({
      at: Date.now(),
      method,
      path,
      remoteAddress: req.socket.remoteAddress ?? '',
      host: req.headers.host,
      userAgent: req.headers['user-agent'],
      route,
      trigger,
    });
    // Aborts on server close and when the client goes away, which ends any pause at once.
    const done = new AbortController();
    const onClosing = (): void => done.abort();
    closing.signal.addEventListener('abort', onClosing);
    active.add(res);
    res.on('close', () => {
      done.abort();
      active.delete(res);
      closing.signal.removeEventListener('abort', onClosing);
    });
    const w = new ReplyWriter(res, done.signal, gate);

    let body: Json = {};
    if (raw) {
      try {
        const parsed: unknown = JSON.parse(raw);
        if (isObj(parsed)) body = parsed;
      } catch {
        log(entry('bad_json'));
        w.json(400, {
          type: 'error',
          error: { type: 'invalid_request_error', message: 'body is not JSON (fake server)' },
        });
        return;
      }
    }

    // Gemini names the model and the streaming mode in the path, not the body.
    const gemini =
      route === 'gemini_stream' || route === 'gemini_generate'
        ? geminiPath(new URL(path, 'http://127.0.0.1').pathname)
        : undefined;
    const modelRoute: ModelRoute | undefined = gemini
      ? {
          parse: (b) => parseGemini(b, gemini.model, route === 'gemini_stream'),
          write: writeGemini as ModelRoute['write'],
        }
      : MODEL_ROUTES[route];
    if (modelRoute) {
      const parsed = modelRoute.parse(body);
      const reply = decideReply(parsed, timings);
      const logged = entry(reply.trigger);
      if (reply.kind !== 'error' && reply.usage) logged.usage = reply.usage;
      if (reply.kind !== 'error' && reply.rateLimits && route === 'responses') logged.rateLimits = reply.rateLimits;
      log(logged);
      res.on('close', () => ends.set(logged, Date.now()));
      try {
        await modelRoute.write(w, reply, parsed as never, retryAfter);
      } catch (e) {
        if (!w.aborted) throw e;
        res.destroy();
      }
      return;
    }
    log(entry('none'));
    if (route === 'count_tokens') return w.json(200, countTokens(body));
    if (route === 'gemini_count_tokens') return w.json(200, geminiCountTokens(body));
    if (route === 'models')
      return w.json(200, {
        object: 'list',
        data: MODELS.map(modelEntry),
        has_more: false,
        first_id: MODELS[0],
        last_id: MODELS[MODELS.length - 1],
      });
    if (route === 'model')
      return w.json(200, modelEntry(decodeURIComponent(path.split('?')[0]!.replace(/^\/v1\/models\//, ''))));
    w.json(404, {
      type: 'error',
      error: { type: 'not_found_error', message: `no route ${method} ${path} (fake server)` },
    });
  }

  const server = createServer((req, res) => {
    handle(req, res).catch((e: unknown) => {
      if (!res.headersSent) {
        res.writeHead(500, { 'content-type': 'application/json' });
        res.end(JSON.stringify({ error: { type: 'fake_server_bug', message: String(e) } }));
      } else res.destroy();
    });
  });

  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(opts.port ?? 0, '127.0.0.1', () => {
      server.off('error', reject);
      resolve();
    });
  });
  const port = (server.address() as AddressInfo).port;

  let closed: Promise<void> | undefined;
  return {
    url: `http://127.0.0.1:${port}`,
    port,
    requests,
    endedAt: (request) => ends.get(request),
    held: () => gate.waiting,
    release: () => gate.open(),
    hold: () => gate.close(),
    close() {
      closed ??= new Promise<void>((resolve) => {
        closing.abort();
        for (const res of active) res.destroy();
        server.close(() => resolve());
        server.closeAllConnections();
      });
      return closed;
    },
  };
}

/** A 127.0.0.1 port with nothing listening on it (bound once to port 0, then closed). */
export function closedPort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const s = createServer();
    s.once('error', reject);
    s.listen(0, '127.0.0.1', () => {
      const { port } = s.address() as AddressInfo;
      s.close(() => resolve(port));
    });
  });
}

/** Proxy variables that send any non-local request to a closed port on 127.0.0.1. */
export function sandboxNetworkEnv(closed: number): Record<string, string> {
  const proxy = `http://127.0.0.1:${closed}`;
  const noProxy = '127.0.0.1,localhost';
  return {
    HTTPS_PROXY: proxy,
    HTTP_PROXY: proxy,
    https_proxy: proxy,
    http_proxy: proxy,
    NO_PROXY: noProxy,
    no_proxy: noProxy,
  };
}
