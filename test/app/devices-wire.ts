import { request as httpRequest } from 'node:http';
import { request as httpsRequest } from 'node:https';
import WebSocket from 'ws';

/** A peer's view of the window host: plain HTTP from a chosen local address (a LAN peer stand-in). */

export interface Reply {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  body: string;
}

export function get(url: string, opts: { from?: string; cookie?: string; insecureTls?: boolean } = {}): Promise<Reply> {
  const u = new URL(url);
  const req = u.protocol === 'https:' ? httpsRequest : httpRequest;
  return new Promise((resolve, reject) => {
    const r = req(
      {
        host: u.hostname,
        port: u.port,
        path: `${u.pathname}${u.search}`,
        method: 'GET',
        localAddress: opts.from,
        headers: { ...(opts.cookie ? { cookie: opts.cookie } : {}), host: u.host },
        ...(opts.insecureTls ? { rejectUnauthorized: false } : {}),
      },
      (res) => {
        let body = '';
        res.on('data', (d: Buffer) => (body += d.toString()));
        res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body }));
      },
    );
    r.on('error', reject);
    r.end();
  });
}

/** The cookie pair a Set-Cookie header sets (`name=value`), for the next request's Cookie header. */
export function cookieOf(reply: Reply): string {
  const set = reply.headers['set-cookie'];
  const first = Array.isArray(set) ? set[0] : set;
  if (!first) throw new Error(`no set-cookie (status ${reply.status})`);
  return first.split(';')[0]!;
}

/** Opens a WebSocket as a peer: resolves with it open, or with the HTTP status that refused it. */
export function openWs(
  url: string,
  opts: { from?: string; cookie?: string; origin?: string } = {},
): Promise<{ ws?: WebSocket; status?: number }> {
  return new Promise((resolve) => {
    const ws = new WebSocket(url, {
      localAddress: opts.from,
      headers: { ...(opts.cookie ? { cookie: opts.cookie } : {}), ...(opts.origin ? { origin: opts.origin } : {}) },
    });
    ws.on('open', () => resolve({ ws }));
    ws.on('unexpected-response', (_req, res) => {
      resolve({ status: res.statusCode });
      ws.terminate();
    });
    ws.on('error', () => resolve({ status: -1 }));
  });
}

/** One request on an open window WebSocket; its result. */
export function wsCall(ws: WebSocket, method: string, params: unknown, id = 1): Promise<any> {
  // eslint-disable-line @typescript-eslint/no-explicit-any
  return new Promise((resolve) => {
    const on = (d: WebSocket.RawData, bin: boolean) => {
      if (bin) return;
      const m = JSON.parse(String(d));
      if (m.id !== id) return;
      ws.off('message', on);
      resolve(m.result);
    };
    ws.on('message', on);
    ws.send(JSON.stringify({ id, method, params }));
  });
}
