import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { PushMessage, RigdeskBridge } from '../../src/shared/contract/app';
import { IPC } from '../../src/preload/channels';
import { REPO } from '../support/rig';

/**
 * The BUILT preload (out/preload/index.js, as the window loads it) run under Node with
 * require('electron') answered by the recording stand-in's contextBridge and ipcRenderer: the
 * Electron binary cannot be had here.
 */
const PRELOAD = join(REPO, 'out', 'preload', 'index.js');
const req = createRequire(import.meta.url);

interface StandIn {
  ipcRenderer: { emit(channel: string, ...args: unknown[]): boolean; listenerCount(channel: string): number };
  standIn: {
    install(): () => void;
    calls: { what: string; [k: string]: unknown }[];
    state: { exposed: Record<string, RigdeskBridge> };
  };
}

/** Every function of the contract's bridge; tsc fails when RigdeskBridge gains or loses one. */
const BRIDGE = { request: true, onPush: true, sendFrame: true, onFrame: true } satisfies Record<
  keyof RigdeskBridge,
  true
>;

describe('the built preload (Electron stand-in: no binary here)', () => {
  const electron = req('./electron-stand-in.cjs') as StandIn;
  let uninstall: () => void;
  let bridge: RigdeskBridge;
  const since = (n: number) => electron.standIn.calls.slice(n).filter((c) => c.what.startsWith('ipcRenderer.'));
  beforeAll(() => {
    uninstall = electron.standIn.install();
    delete req.cache[PRELOAD];
    req(PRELOAD);
    bridge = electron.standIn.state.exposed.rigdesk!;
  });
  afterAll(() => uninstall());

  it('requires nothing but electron (a sandboxed preload can load nothing else)', () => {
    const src = readFileSync(PRELOAD, 'utf8');
    expect([...src.matchAll(/\brequire\(\s*["'`]([^"'`]+)["'`]\s*\)/g)].map((m) => m[1])).toEqual(['electron']);
  });

  it("exposes exactly the contract's bridge functions, once, as window.rigdesk", () => {
    const exposed = electron.standIn.calls.filter((c) => c.what === 'contextBridge.exposeInMainWorld');
    expect(exposed).toEqual([expect.objectContaining({ key: 'rigdesk' })]);
    expect([...(exposed[0]!.members as string[])].sort()).toEqual(Object.keys(BRIDGE).sort());
    for (const k of Object.keys(BRIDGE)) expect(typeof bridge[k as keyof RigdeskBridge], k).toBe('function');
  });

  it('request goes out on the request channel and its answer comes back', async () => {
    const n = electron.standIn.calls.length;
    const msg = { id: 3, method: 'ps', params: {} } as const;
    expect(await bridge.request(msg)).toEqual({ echoed: [msg] });
    expect(since(n)).toEqual([expect.objectContaining({ what: 'ipcRenderer.invoke', channel: IPC.request })]);
  });

  it('pushes and frames arrive from their channels without the event, and stop when unsubscribed', () => {
    const pushes: PushMessage[] = [];
    const frames: Uint8Array[] = [];
    const offPush = bridge.onPush((m) => pushes.push(m));
    const offFrame = bridge.onFrame((b) => frames.push(b));
    const push: PushMessage = { push: 'focus', data: { seat: 'lead@duo' } };
    electron.ipcRenderer.emit(IPC.push, { sender: 'main' }, push);
    electron.ipcRenderer.emit(IPC.frameOut, { sender: 'main' }, new Uint8Array([1, 2]));
    expect(pushes).toEqual([push]);
    expect(frames).toEqual([new Uint8Array([1, 2])]);
    offPush();
    offFrame();
    expect(electron.ipcRenderer.listenerCount(IPC.push)).toBe(0);
    expect(electron.ipcRenderer.listenerCount(IPC.frameOut)).toBe(0);
    electron.ipcRenderer.emit(IPC.push, {}, push);
    expect(pushes).toHaveLength(1);
  });

  it('frames go out on the frame-in channel', () => {
    const n = electron.standIn.calls.length;
    bridge.sendFrame(new Uint8Array([7, 8, 9]));
    expect(since(n)).toEqual([
      expect.objectContaining({ what: 'ipcRenderer.send', channel: IPC.frameIn, args: [[7, 8, 9]] }),
    ]);
  });

  it("uses only the contract's channels, every one of them", async () => {
    const n = electron.standIn.calls.length;
    await bridge.request({ id: 4, method: 'ps', params: {} });
    bridge.sendFrame(new Uint8Array([1]));
    bridge.onPush(() => undefined)();
    bridge.onFrame(() => undefined)();
    const used = new Set(since(n).map((c) => c.channel));
    expect([...used].sort()).toEqual(Object.values(IPC).sort());
  });
});
