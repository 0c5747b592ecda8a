/**
 * A forward proxy on 127.0.0.1 that only ever connects to 127.0.0.1 or localhost: CONNECT tunnels
 * and absolute-URI requests to any other host are refused (403) and logged, and nothing leaves the
 * machine. Qwen Code ignores NO_PROXY and sends its model calls through whatever proxy it is given
 * (../shared/docs/agent-clis-more.md §3.1); pointed at this one, it reaches the fake model server
 * and nothing else.
 */
import { createServer, request, type IncomingMessage, type Server } from 'node:http';
import { connect, type AddressInfo, type Socket } from 'node:net';

export interface LocalProxy {
  url: string;
  port: number;
  /** Every request, allowed or refused, in arrival order. */
  log: { method: string; target: string; allowed: boolean }[];
  denied(): { method: string; target: string }[];
  close(): Promise<void>;
}

const LOOPBACK = new Set(['127.0.0.1', 'localhost', '[::1]', '::1']);

/** host and port from `host:port` (CONNECT) or an absolute URI; undefined when unreadable. */
export function proxyTarget(method: string, target: string): { host: string; port: number } | undefined {
  try {
    if (method === 'CONNECT') {
      const u = new URL(`http://${target}`);
      return { host: u.hostname, port: Number(u.port || 443) };
    }
    const u = new URL(target);
    if (u.protocol !== 'http:') return undefined;
    return { host: u.hostname, port: Number(u.port || 80) };
  } catch {
    return undefined;
  }
}

export function isLoopbackHost(host: string): boolean {
  return LOOPBACK.has(host.toLowerCase());
}

export async function startLocalProxy(): Promise<LocalProxy> {
  const log: LocalProxy['log'] = [];
  const sockets = new Set<Socket>();
  const allow = (method: string, target: string) => {
    const t = proxyTarget(method, target);
    const ok = t !== undefined && isLoopbackHost(t.host);
    log.push({ method, target, allowed: ok });
    return ok ? t : undefined;
  };

  const server: Server = createServer((req: IncomingMessage, res) => {
    const t = allow(req.method ?? 'GET', req.url ?? '');
    if (!t) {
      res.writeHead(403, { 'content-type': 'text/plain' }).end('local proxy: only 127.0.0.1 and localhost\n');
      return;
    }
    const u = new URL(req.url!);
    const up = request(
      { host: '127.0.0.1', port: t.port, method: req.method, path: `${u.pathname}${u.search}`, headers: req.headers },
      (r) => {
        res.writeHead(r.statusCode ?? 502, r.headers);
        r.pipe(res);
      },
    );
    up.on('error', () => res.writeHead(502).end());
    req.pipe(up);
  });
  server.on('connect', (req: IncomingMessage, client: Socket, head: Buffer) => {
    sockets.add(client);
    client.on('close', () => sockets.delete(client));
    client.on('error', () => client.destroy());
    const t = allow('CONNECT', req.url ?? '');
    if (!t) {
      client.end('HTTP/1.1 403 Forbidden\r\ncontent-length: 0\r\n\r\n');
      return;
    }
    const up = connect(t.port, '127.0.0.1', () => {
      client.write('HTTP/1.1 200 Connection Established\r\n\r\n');
      if (head.length) up.write(head);
      up.pipe(client);
      client.pipe(up);
    });
    sockets.add(up);
    up.on('close', () => sockets.delete(up));
    up.on('error', () => client.destroy());
  });
  server.on('connection', (s: Socket) => {
    sockets.add(s);
    s.on('close', () => sockets.delete(s));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  server.unref();
  const port = (server.address() as AddressInfo).port;
  return {
    url: `http://127.0.0.1:${port}`,
    port,
    log,
    denied: () => log.filter((l) => !l.allowed).map(({ method, target }) => ({ method, target })),
    close: () =>
      new Promise<void>((resolve) => {
        for (const s of sockets) s.destroy();
        server.close(() => resolve());
      }),
  };
}
