import { randomBytes, timingSafeEqual } from 'node:crypto';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { createServer as createTlsServer } from 'node:https';
import type { AddressInfo, Socket } from 'node:net';
import { resolve } from 'node:path';
import type { Engine } from '../main/engine/engine';
import type { WindowHubContext } from '../main/window-hub/connection';
import { PushHub } from '../main/window-hub/pushes';
import { TerminalHub } from '../main/terminal/hub';
import { page, pairRoute } from './pair-page';
import { cookieValue, DEVICE_COOKIE, deviceBaseUrl, isLoopback, type ListenAddress, peerAddress } from './peers';
import { refuseUpgrade, WindowSockets, wsUrl } from './sockets';
import { serveStatic } from './static';

export interface ListenOptions extends ListenAddress {
  /** PEM certificate and key: the window beyond this machine over HTTPS. */
  tls?: { cert: string | Buffer; key: string | Buffer };
  /** The base URL devices are given when it is not the address listened on (a certificate's name). */
  publicUrl?: string;
}

export interface ServeOptions {
  engine: Engine;
  /** 0 picks a free port. */
  port?: number;
  /** The built renderer (out/renderer). */
  staticDir: string;
  terminals?: TerminalHub;
  pushes?: PushHub;
  /** `--listen`: the window at this address too, to paired devices only. */
  listen?: ListenOptions;
  /** Test-only: which peer addresses count as this machine (default: every loopback address). */
  thisMachine?: (address: string) => boolean;
}

export interface ServeHandle {
  /** Open this in a browser: it carries the per-start token. */
  url: string;
  port: number;
  token: string;
  ctx: WindowHubContext;
  /** The base URL devices reach (`listen`), and its port. */
  listenUrl?: string;
  listenPort?: number;
  /** Open WebSocket connections (tests check cleanup). */
  connections(): number;
  close(): Promise<void>;
}

/** What both listeners share: the built renderer, the sockets, the per-start token. */
interface Shared {
  staticDir: string;
  sockets: WindowSockets;
  tokenOk(given: string | null): boolean;
}

function perStartToken(): { token: string; tokenOk: (given: string | null) => boolean } {
  const token = randomBytes(24).toString('hex');
  const tokenBuf = Buffer.from(token);
  return {
    token,
    tokenOk: (given) => {
      const b = Buffer.from(given ?? '');
      return b.length === tokenBuf.length && timingSafeEqual(b, tokenBuf);
    },
  };
}

/**
 * This machine's listener, on 127.0.0.1 only: the WebSocket needs the per-start token (from the
 * URL) and a same-origin Origin; Host must name 127.0.0.1 or localhost at this port, which defeats
 * DNS rebinding for the static files too.
 */
function localListener(s: Shared, port: () => number): Server {
  const hostOk = (h: string | undefined) => h === `127.0.0.1:${port()}` || h === `localhost:${port()}`;
  const server = createServer((req, res) => {
    if (!hostOk(req.headers.host)) {
      res.writeHead(421).end('wrong host');
      return;
    }
    void serveStatic(s.staticDir, req, res);
  });
  server.on('upgrade', (req: IncomingMessage, socket: Socket, head: Buffer) => {
    const url = wsUrl(req);
    if (!url || !hostOk(req.headers.host)) return refuseUpgrade(socket, 404, 'Not Found');
    const origin = req.headers.origin;
    if (origin !== undefined && origin !== `http://127.0.0.1:${port()}` && origin !== `http://localhost:${port()}`)
      return refuseUpgrade(socket, 403, 'Forbidden');
    if (!s.tokenOk(url.searchParams.get('token'))) return refuseUpgrade(socket, 401, 'Unauthorized');
    s.sockets.upgrade(req, socket, head, {}, peerAddress(req.socket.remoteAddress));
  });
  return server;
}

/**
 * The devices' listener (`--listen`): every request needs a paired device's cookie, except the
 * pairing link itself, and from this machine, where the per-start token still opens the WebSocket.
 * Its WebSocket takes only this origin's own pages (a page of another site may open one here).
 */
function deviceListener(s: Shared, engine: Engine, listen: ListenOptions, thisMachine: (a: string) => boolean): Server {
  const devices = engine.devices;
  const tls = Boolean(listen.tls);
  const deviceOf = (req: IncomingMessage, address: string) =>
    devices.authenticate(cookieValue(req.headers.cookie, DEVICE_COOKIE), address);
  const onRequest = (req: IncomingMessage, res: ServerResponse) => {
    const address = peerAddress(req.socket.remoteAddress);
    const path = (req.url ?? '/').split('?')[0] ?? '/';
    const pair = /^\/pair\/([^/]{1,64})$/.exec(path);
    if (pair) return pairRoute(devices, pair[1]!, address, tls, req, res);
    if (!deviceOf(req, address) && !thisMachine(address))
      return page(
        res,
        401,
        'This device is not paired',
        'On the machine running Rigdesk, run `rigdesk devices pair` and open the link it prints on this device. Just paired? Reload this page.',
      );
    void serveStatic(s.staticDir, req, res);
  };
  const server = listen.tls
    ? createTlsServer({ cert: listen.tls.cert, key: listen.tls.key }, onRequest)
    : createServer(onRequest);
  server.on('upgrade', (req: IncomingMessage, socket: Socket, head: Buffer) => {
    const url = wsUrl(req);
    if (!url) return refuseUpgrade(socket, 404, 'Not Found');
    const origin = req.headers.origin;
    if (origin !== undefined && origin !== `${tls ? 'https' : 'http'}://${req.headers.host ?? ''}`)
      return refuseUpgrade(socket, 403, 'Forbidden');
    const address = peerAddress(req.socket.remoteAddress);
    const device = deviceOf(req, address);
    if (!device && !(thisMachine(address) && s.tokenOk(url.searchParams.get('token'))))
      return refuseUpgrade(socket, 401, 'Unauthorized');
    s.sockets.upgrade(req, socket, head, device ? { device } : {}, address);
  });
  return server;
}

/**
 * `rigdesk serve`'s window host (browser mode): the built renderer over HTTP and the window
 * contract over a WebSocket at /ws, on 127.0.0.1; with `listen`, also at that address for paired
 * devices (see deviceListener).
 */
export async function startServe(opts: ServeOptions): Promise<ServeHandle> {
  const { token, tokenOk } = perStartToken();
  const engine = opts.engine;
  const ctx: WindowHubContext = {
    engine,
    terminals: opts.terminals ?? new TerminalHub(engine),
    pushes: opts.pushes ?? new PushHub(engine),
  };
  const sockets = new WindowSockets(ctx, engine.devices);
  const shared: Shared = { staticDir: resolve(opts.staticDir), sockets, tokenOk };
  let port = 0;
  const local = localListener(shared, () => port);
  const servers = [local];
  let listenUrl: string | undefined;
  let listenPort: number | undefined;
  try {
    await listenOn(local, opts.port ?? 0, '127.0.0.1');
    port = (local.address() as AddressInfo).port;
    if (opts.listen) {
      const listener = deviceListener(shared, engine, opts.listen, opts.thisMachine ?? isLoopback);
      servers.push(listener);
      await listenOn(listener, opts.listen.port, opts.listen.host);
      listenPort = (listener.address() as AddressInfo).port;
      listenUrl = deviceBaseUrl(opts.listen, listenPort, Boolean(opts.listen.tls), opts.listen.publicUrl);
      engine.devices.listenAt(listenUrl);
    }
  } catch (e) {
    await closeAll(servers, sockets, ctx);
    throw e;
  }
  return {
    url: `http://127.0.0.1:${port}/?token=${token}`,
    port,
    token,
    ctx,
    listenUrl,
    listenPort,
    connections: () => sockets.size,
    close: async () => {
      if (listenUrl) engine.devices.listenAt(undefined);
      await closeAll(servers, sockets, ctx);
    },
  };
}

async function closeAll(servers: Server[], sockets: WindowSockets, ctx: WindowHubContext): Promise<void> {
  await sockets.close();
  ctx.pushes.close();
  await Promise.all(
    servers.map((server) => {
      if (!server.listening) return undefined;
      const closed = new Promise<void>((r) => server.close(() => r()));
      server.closeAllConnections?.();
      return closed;
    }),
  );
}

function listenOn(server: Server, port: number, host: string): Promise<void> {
  return new Promise<void>((res, rej) => {
    server.once('error', rej);
    server.listen(port, host, () => {
      server.off('error', rej);
      res();
    });
  });
}
