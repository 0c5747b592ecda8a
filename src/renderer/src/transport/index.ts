import type { RigdeskBridge } from '../../../shared/contract/app';
import { ipcTransport } from './ipc';
import type { Transport } from './types';
import { wsTransport } from './ws';

/** Picked once at start: the preload's bridge when there is one (Electron), else the WebSocket. */
export function pickTransport(w: Window & { rigdesk?: RigdeskBridge }): Transport {
  return w.rigdesk ? ipcTransport(w.rigdesk) : wsTransport(w.location);
}
export type { Transport } from './types';
