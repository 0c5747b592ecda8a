import { randomBytes, timingSafeEqual } from 'node:crypto';
import { createServer, type IncomingMessage } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import { resolve } from 'node:path';
import { WebSocketServer, type RawData, type WebSocket } from 'ws';
import type { Engine } from '../main/engine/engine';
import { WindowConnection, type WindowHubContext } from '../main/window-hub/connection';
import { PushHub } from '../main/window-hub/pushes';
import { TerminalHub } from '../main/terminal/hub';
import { serveStatic } from './static';

export interface ServeOptions {
  engine: Engine;
  /** 0 picks a free port. */
  port?: number;
  /** The built renderer (out/renderer). */
  staticDir: string;
  terminals?: TerminalHub;
  pushes?: PushHub;
}

export interface ServeHandle {
  /** Open this in a browser: it carries the per-start token. */
  url: string;
  port: number;
  token: string;
  ctx: WindowHubContext;
  /** Open WebSocket connections (tests check cleanup). */
  connections(): number;
  close(): Promise<void>;
}

/** Frames far above the contract's limits are cut by ws itself (close 1009) before parsing. */
const WS_MAX_PAYLOAD = 8 * 1024 * 1024;

/**
 * `rigdesk serve`'s window host (browser mode): the built renderer over HTTP and the window
 * contract over a WebSocket at /ws, on 127.0.0.1 only. The WebSocket needs the per-start token
 * (from the URL) and a same-origin Origin; Host must name 127.0.0.1 or localhost at this port,
 * which defeats DNS rebinding for the static files too.
 */
export async function startServe(opts: ServeOptions): Promise<ServeHandle> {
  const token = randomBytes(24).toString('hex');
  const tokenBuf = Buffer.from(token);
  const staticDir = resolve(opts.staticDir);
  const ctx: WindowHubContext = {
    engine: opts.engine,
    terminals: opts.terminals ?? new TerminalHub(opts.engine),
    pushes: opts.pushes ?? new PushHub(opts.engine),
  };
  let port = 0;
  const hostOk = (h: string | undefined) => h === `127.0.0.1:${port}` || h === `localhost:${port}`;
  const http = createServer((req, res) => {
    if (!hostOk(req.headers.host)) {
      res.writeHead(421).end('wrong host');
      return;
    }
    void serveStatic(staticDir, req, res);
  });
  const wss = new WebSocketServer({ noServer: true, maxPayload: WS_MAX_PAYLOAD });
  const sockets = new Set<WebSocket>();

  http.on('upgrade', (req: IncomingMessage, socket: Socket, head: Buffer) => {
    const refuse = (code: number, why: string) => {
      socket.end(`HTTP/1.1 ${code} ${why}\r\nconnection: close\r\n\r\n`);
    };
    let url: URL;
    try {
      url = new URL(req.url ?? '/', 'http://127.0.0.1');
    } catch {
      return refuse(400, 'Bad Request');
    }
    if (url.pathname !== '/ws' || !hostOk(req.headers.host)) return refuse(404, 'Not Found');
    const origin = req.headers.origin;
    if (origin !== undefined && origin !== `http://127.0.0.1:${port}` && origin !== `http://localhost:${port}`)
      return refuse(403, 'Forbidden');
    const given = Buffer.from(url.searchParams.get('token') ?? '');
    if (given.length !== tokenBuf.length || !timingSafeEqual(given, tokenBuf)) return refuse(401, 'Unauthorized');
    wss.handleUpgrade(req, socket, head, (ws) => attach(ws));
  });

  function attach(ws: WebSocket): void {
    sockets.add(ws);
    const conn = new WindowConnection(ctx, {
      message: (m) => {
        if (ws.readyState === ws.OPEN) ws.send(JSON.stringify(m));
      },
      frame: (b) => {
        if (ws.readyState === ws.OPEN) ws.send(b, { binary: true });
      },
    });
    ws.on('message', (data: RawData, isBinary: boolean) => {
      const buf = Array.isArray(data)
        ? Buffer.concat(data)
        : Buffer.isBuffer(data)
          ? data
          : Buffer.from(data as ArrayBuffer);
      if (isBinary) conn.frame(new Uint8Array(buf.buffer, buf.byteOffset, buf.byteLength));
      else void conn.text(buf.toString('utf8'));
    });
    ws.on('error', () => undefined);
    ws.on('close', () => {
      sockets.delete(ws);
      conn.close();
    });
  }

  await new Promise<void>((res, rej) => {
    http.once('error', rej);
    http.listen(opts.port ?? 0, '127.0.0.1', () => res());
  });
  port = (http.address() as AddressInfo).port;
  const url = `http://127.0.0.1:${port}/?token=${token}`;
  return {
    url,
    port,
    token,
    ctx,
    connections: () => sockets.size,
    close: async () => {
      for (const ws of sockets) ws.terminate();
      ctx.pushes.close();
      await new Promise<void>((r) => wss.close(() => r()));
      await new Promise<void>((r) => http.close(() => r()));
      http.closeAllConnections?.();
    },
  };
}
