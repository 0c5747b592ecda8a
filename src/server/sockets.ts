import type { IncomingMessage } from 'node:http';
import type { Socket } from 'node:net';
import { type RawData, type WebSocket, WebSocketServer } from 'ws';
import type { DeviceSeen, Devices } from '../main/engine/devices/pairing';
import { WindowConnection, type WindowHubContext } from '../main/window-hub/connection';

/** Frames far above the contract's limits are cut by ws itself (close 1009) before parsing. */
const WS_MAX_PAYLOAD = 8 * 1024 * 1024;
/** A revoked device's socket gets a close frame; one that does not answer is cut after this. */
const REVOKE_GRACE_MS = 300;

/** Who a connection is: this machine (the per-start token's holder) or a paired device. */
export type Who = { device?: DeviceSeen };

export function refuseUpgrade(socket: Socket, code: number, why: string): void {
  socket.end(`HTTP/1.1 ${code} ${why}\r\nconnection: close\r\n\r\n`);
}

/** The request's URL when it asks for the contract's WebSocket (/ws), else undefined. */
export function wsUrl(req: IncomingMessage): URL | undefined {
  try {
    const url = new URL(req.url ?? '/', 'http://127.0.0.1');
    return url.pathname === '/ws' ? url : undefined;
  } catch {
    return undefined;
  }
}

/**
 * Every window WebSocket of one serve, whichever listener took it: each a WindowConnection, and
 * for a device, closed as soon as that device is revoked.
 */
export class WindowSockets {
  private readonly wss = new WebSocketServer({ noServer: true, maxPayload: WS_MAX_PAYLOAD });
  private readonly open = new Map<WebSocket, Who>();
  private readonly unRevoke: () => void;

  constructor(
    private readonly ctx: WindowHubContext,
    private readonly devices: Devices,
  ) {
    this.unRevoke = devices.onRevoke((id) => this.revoked(id));
    devices.countConnections((id) => this.of(id).length);
  }

  get size(): number {
    return this.open.size;
  }

  upgrade(req: IncomingMessage, socket: Socket, head: Buffer, who: Who, address: string): void {
    this.wss.handleUpgrade(req, socket, head, (ws) => this.attach(ws, who, address));
  }

  private attach(ws: WebSocket, who: Who, address: string): void {
    this.open.set(ws, who);
    const conn = new WindowConnection(
      this.ctx,
      {
        message: (m) => {
          if (ws.readyState === ws.OPEN) ws.send(JSON.stringify(m));
        },
        frame: (b) => {
          if (ws.readyState === ws.OPEN) ws.send(b, { binary: true });
        },
      },
      who,
    );
    ws.on('message', (data: RawData, isBinary: boolean) => {
      if (who.device) this.devices.seen(who.device.id, address);
      const buf = Array.isArray(data) ? Buffer.concat(data) : Buffer.isBuffer(data) ? data : Buffer.from(data);
      if (isBinary) conn.frame(new Uint8Array(buf.buffer, buf.byteOffset, buf.byteLength));
      else void conn.text(buf.toString('utf8'));
    });
    ws.on('error', () => undefined);
    ws.on('close', () => {
      this.open.delete(ws);
      conn.close();
    });
  }

  private of(id: string): WebSocket[] {
    return [...this.open].filter(([, who]) => who.device?.id === id).map(([ws]) => ws);
  }

  private revoked(id: string): number {
    const open = this.of(id);
    for (const ws of open) {
      ws.close(4401, 'device revoked');
      setTimeout(() => ws.terminate(), REVOKE_GRACE_MS).unref();
    }
    return open.length;
  }

  async close(): Promise<void> {
    this.unRevoke();
    this.devices.countConnections(() => 0);
    for (const ws of this.open.keys()) ws.terminate();
    await new Promise<void>((r) => this.wss.close(() => r()));
  }
}
