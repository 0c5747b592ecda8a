import { IPC } from '../../preload/channels';
import { fail } from '../../shared/errors';
import { WindowConnection, type WindowHubContext } from '../window-hub/connection';
import type { IpcEventLike, IpcMainLike, WebContentsLike } from './types';

/**
 * Electron IPC transport of the window contract. Every message is checked for its sender (a
 * window we attached, on the bundled renderer's URL) before the same WindowConnection the
 * WebSocket uses validates and runs it.
 */
export function wireIpc(
  ipc: IpcMainLike,
  ctx: WindowHubContext,
  opts: { rendererUrl: string },
): { attach(wc: WebContentsLike): void; connections(): number } {
  const conns = new Map<number, WindowConnection>();
  const home = new URL(opts.rendererUrl);
  const trusted = (e: IpcEventLike): WindowConnection | undefined => {
    const conn = conns.get(e.sender.id);
    const url = e.senderFrame?.url;
    if (!conn || !url) return undefined;
    try {
      const u = new URL(url);
      return u.protocol === home.protocol && u.host === home.host && u.pathname === home.pathname ? conn : undefined;
    } catch {
      return undefined;
    }
  };
  ipc.handle(IPC.request, async (e, msg) => {
    const conn = trusted(e);
    if (!conn) return { id: null, result: fail('BAD_USAGE', 'refused: not the Rigdesk window') };
    return conn.answerFor(msg);
  });
  ipc.on(IPC.frameIn, (e, bytes) => {
    const conn = trusted(e);
    if (conn && bytes instanceof Uint8Array) conn.frame(bytes);
  });
  return {
    attach(wc) {
      const conn = new WindowConnection(ctx, {
        message: (m) => {
          if ('push' in m && !wc.isDestroyed()) wc.send(IPC.push, m);
        },
        frame: (b) => {
          if (!wc.isDestroyed()) wc.send(IPC.frameOut, b);
        },
      });
      conns.set(wc.id, conn);
      wc.on('destroyed', () => {
        conn.close();
        conns.delete(wc.id);
      });
    },
    connections: () => conns.size,
  };
}
