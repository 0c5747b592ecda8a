import { contextBridge, ipcRenderer } from 'electron';
import type { PushMessage, RigdeskBridge } from '../shared/contract/app';
import { IPC } from './channels';

// The preload exposes the window contract and nothing else: four forwarding functions. It holds
// no logic, so it stays tiny; the main process validates every message against the contract.
const bridge: RigdeskBridge = {
  request: (msg) => ipcRenderer.invoke(IPC.request, msg),
  onPush: (cb) => {
    const fn = (_e: unknown, m: PushMessage) => cb(m);
    ipcRenderer.on(IPC.push, fn);
    return () => void ipcRenderer.removeListener(IPC.push, fn);
  },
  sendFrame: (bytes) => ipcRenderer.send(IPC.frameIn, bytes),
  onFrame: (cb) => {
    const fn = (_e: unknown, b: Uint8Array) => cb(b);
    ipcRenderer.on(IPC.frameOut, fn);
    return () => void ipcRenderer.removeListener(IPC.frameOut, fn);
  },
};

contextBridge.exposeInMainWorld('rigdesk', bridge);
