import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { PsRow } from '../../src/shared/contract';
import { PushHub } from '../../src/main/window-hub/pushes';
import { startShell } from '../../src/main/shell/app';
import { deepLinkInArgv } from '../../src/main/shell/deeplink';
import { IPC } from '../../src/preload/channels';
import { trayState } from '../../src/main/shell/tray';
import { windowOptions } from '../../src/main/shell/window';
import { fakeElectron, type Listener } from './electron-fake';
import { RENDERER_SCHEME, RENDERER_URL, WINDOW_CSP } from '../../src/main/shell/renderer-protocol';
import { TerminalHub } from '../../src/main/terminal/hub';
import type { Engine } from '../../src/main/engine/engine';
import { dispatch } from '../../src/main/engine/api';
import { REPO, RigWorld, shellRigYaml } from '../support/rig';
import { waitFor } from '../support/tmux';
import { existsSync } from 'node:fs';
import { join } from 'node:path';

const RENDERER = RENDERER_URL;
/** The built renderer (npm test builds first). */
const ROOT = join(REPO, 'out', 'renderer');
const IMAGES = { idle: '/r/tray.png', attention: '/r/tray-attention.png' };

let world: RigWorld;
let engine: Engine;
beforeAll(async () => {
  world = new RigWorld();
  engine = world.engine();
  const spec = world.spec('duo.yaml', shellRigYaml('duo', ['lead', 'worker']));
  expect(await dispatch(engine, 'up', { spec })).toMatchObject({ ok: true });
}, 60_000);
afterAll(() => world?.cleanup());

function ctx() {
  return {
    engine,
    terminals: new TerminalHub(engine),
    pushes: new PushHub(engine, { seatsMs: 60_000, eventsMs: 60_000 }),
  };
}

describe('Electron shell wiring (Electron API injected)', () => {
  it('window options: context isolation, sandbox, no node integration, no webviews', () => {
    const o = windowOptions('/p/preload.js') as { webPreferences: Record<string, unknown> };
    expect(o.webPreferences).toMatchObject({
      contextIsolation: true,
      sandbox: true,
      nodeIntegration: false,
      nodeIntegrationInWorker: false,
      nodeIntegrationInSubFrames: false,
      webviewTag: false,
      webSecurity: true,
      allowRunningInsecureContent: false,
      preload: '/p/preload.js',
    });
    // The smallest window the workspace is laid out for (the window tests draw it at that size).
    expect(o).toMatchObject({ minWidth: 960, minHeight: 600 });
  });

  it('the started window refuses navigation, new windows and permissions, and sends the strict CSP', async () => {
    const f = fakeElectron();
    const c = ctx();
    const shell = await startShell({
      api: f.api,
      ctx: c,
      argv: ['/opt/Rigdesk/rigdesk'],
      preloadPath: '/p/preload.js',
      rendererRoot: ROOT,
      trayImages: IMAGES,
    });
    expect(shell).toBeDefined();
    expect(f.windowOpts!.webPreferences?.sandbox).toBe(true);
    expect(f.log).toContain('protocol rigdesk');
    expect(f.log).toContain(`load ${RENDERER}`);
    expect(f.nav('will-navigate', 'https://evil.example/')).toBe(true);
    expect(f.nav('will-navigate', 'file:///etc/passwd')).toBe(true);
    expect(f.nav('will-redirect', 'http://127.0.0.1:1/')).toBe(true);
    expect(f.nav('will-navigate', `${RENDERER}#/seat/lead%40duo`)).toBe(false);
    expect(f.openHandler!({ url: 'https://evil.example/' })).toEqual({ action: 'deny' });
    let granted: boolean | undefined;
    f.permission!(null, 'media', (ok: boolean) => (granted = ok));
    expect(granted).toBe(false);
    let out: Record<string, string[]> = {};
    f.headers!(
      { responseHeaders: {} },
      (r: { responseHeaders: Record<string, string[]> }) => (out = r.responseHeaders),
    );
    expect(out['Content-Security-Policy']).toEqual([WINDOW_CSP]);
    c.pushes.close();
  });

  it('the window loads the bundle from rigdesk-app://renderer/, a privileged scheme that never bypasses the CSP, answered from the bundle folder only', async () => {
    const f = fakeElectron();
    const c = ctx();
    await startShell({ api: f.api, ctx: c, argv: [], preloadPath: '/p', rendererRoot: ROOT, trayImages: IMAGES });
    expect(f.log).toContain(`load ${RENDERER_URL}`);
    expect(RENDERER_URL).toBe('rigdesk-app://renderer/index.html');
    expect(f.schemes).toEqual([
      {
        scheme: RENDERER_SCHEME,
        privileges: expect.objectContaining({ standard: true, secure: true, bypassCSP: false }),
      },
    ]);
    const handler = f.protocolHandlers[RENDERER_SCHEME]!;
    const serve = async (r: { url: string; method: string }) => handler(new Request(r.url, { method: r.method }));
    const index = await serve({ url: RENDERER_URL, method: 'GET' });
    expect(index.status).toBe(200);
    expect(index.headers.get('content-security-policy')).toBe(WINDOW_CSP);
    expect(await index.text()).toContain('<div id="root">');
    // Each script the page names is served, as JavaScript, under the same policy.
    const html = await (await serve({ url: RENDERER_URL, method: 'GET' })).text();
    const scripts = [...html.matchAll(/<script[^>]*src="([^"]+)"/g)].map((m) => new URL(m[1]!, RENDERER_URL).href);
    expect(scripts.length).toBeGreaterThan(0);
    for (const u of scripts) {
      const r = await serve({ url: u, method: 'GET' });
      expect([r.status, r.headers.get('content-type'), r.headers.get('content-security-policy')], u).toEqual([
        200,
        'text/javascript; charset=utf-8',
        WINDOW_CSP,
      ]);
    }
    for (const bad of [
      'rigdesk-app://renderer/../../../../etc/passwd',
      'rigdesk-app://renderer/%2e%2e/%2e%2e/%2e%2e/etc/passwd',
      'rigdesk-app://renderer/..%2f..%2f..%2fetc%2fpasswd',
      'rigdesk-app://other/index.html',
      'rigdesk-app://renderer/%E0%A4%A',
    ]) {
      const r = await serve({ url: bad, method: 'GET' });
      expect(r.status, bad).not.toBe(200);
      expect(await r.text(), bad).not.toMatch(/root:/);
    }
    expect((await serve({ url: RENDERER_URL, method: 'POST' })).status).toBe(405);
    expect((await serve({ url: 'rigdesk-app://renderer/no-such-file.js', method: 'GET' })).status).toBe(404);
    // The IPC sender check and navigation both take the scheme's URL as home.
    expect(f.nav('will-navigate', 'file:///opt/Rigdesk/resources/app/out/renderer/index.html')).toBe(true);
    c.pushes.close();
  });

  it('IPC: only the window we attached, on the renderer URL, is answered; its requests go through the contract', async () => {
    const f = fakeElectron();
    const c = ctx();
    await startShell({ api: f.api, ctx: c, argv: [], preloadPath: '/p', rendererRoot: ROOT, trayImages: IMAGES });
    const handle = f.ipcHandle[IPC.request]!;
    expect(
      await handle({ sender: { id: 7 }, senderFrame: { url: RENDERER } }, { id: 1, method: 'topology', params: {} }),
    ).toMatchObject({ id: 1, result: { ok: true, rigs: [{ name: 'duo' }] } });
    expect(
      await handle(
        { sender: { id: 7 }, senderFrame: { url: 'https://evil.example/' } },
        { id: 2, method: 'ps', params: {} },
      ),
    ).toMatchObject({ id: null, result: { ok: false } });
    expect(
      await handle({ sender: { id: 99 }, senderFrame: { url: RENDERER } }, { id: 3, method: 'ps', params: {} }),
    ).toMatchObject({ id: null, result: { ok: false } });
    expect(
      await handle(
        { sender: { id: 7 }, senderFrame: { url: RENDERER } },
        { id: 4, method: 'stop', params: { seat: 'ghost@duo' } },
      ),
    ).toMatchObject({ id: 4, result: { ok: false, code: 'SEAT_NOT_FOUND' } });
    expect(await handle({ sender: { id: 7 }, senderFrame: { url: RENDERER } }, 'garbage')).toMatchObject({
      result: { ok: false, code: 'BAD_USAGE' },
    });
    c.pushes.close();
  });

  it('tray image and tooltip show how many seats need input; notification on entering needs_input focuses that seat on click', async () => {
    const f = fakeElectron();
    const c = ctx();
    const shell = (await startShell({
      api: f.api,
      ctx: c,
      argv: [],
      preloadPath: '/p',
      rendererRoot: ROOT,
      trayImages: IMAGES,
    }))!;
    const row = (seat: string, activity: PsRow['activity'], needsInput?: string) =>
      ({ seat, activity, needsInput }) as PsRow;
    shell.tray!.update([row('lead@duo', 'idle'), row('worker@duo', 'working')]);
    expect(f.tray).toMatchObject({ image: IMAGES.idle, tooltip: expect.stringMatching(/none need you/) });
    shell.tray!.update([row('lead@duo', 'needs_input', 'permission'), row('worker@duo', 'needs_input', 'question')]);
    expect(f.tray).toMatchObject({ image: IMAGES.attention, tooltip: expect.stringMatching(/2 seat\(s\) need input/) });
    expect(trayState([row('a@r', 'needs_input'), row('b@r', 'unknown')], IMAGES).count).toBe(1);

    const pushes: unknown[] = [];
    c.pushes.subscribe((m) => pushes.push(m));
    expect(shell.notifier.update([row('lead@duo', 'needs_input', 'permission')])).toEqual(['lead@duo']);
    // Still waiting on the next poll: no second notification.
    expect(shell.notifier.update([row('lead@duo', 'needs_input', 'permission')])).toEqual([]);
    expect(f.notifications).toHaveLength(1);
    expect(f.notifications[0]!.title).toBe('lead@duo needs you');
    f.log.length = 0;
    f.notifications[0]!.click();
    expect(pushes).toContainEqual({ push: 'focus', data: { seat: 'lead@duo' } });
    expect(f.log).toEqual(expect.arrayContaining(['show', 'focus']));
    // Leaving and re-entering needs_input notifies again.
    shell.notifier.update([row('lead@duo', 'working')]);
    expect(shell.notifier.update([row('lead@duo', 'needs_input', 'question')])).toEqual(['lead@duo']);
    c.pushes.close();
  });

  it('deep links: first launch argv and a second instance both route to the seat; malformed and foreign ones are refused', async () => {
    const f = fakeElectron();
    const c = ctx();
    const pushes: unknown[] = [];
    c.pushes.subscribe((m) => pushes.push(m));
    const shell = (await startShell({
      api: f.api,
      ctx: c,
      argv: ['/opt/Rigdesk/rigdesk', '--no-sandbox', 'rigdesk://seat/duo/worker'],
      preloadPath: '/p',
      rendererRoot: ROOT,
      trayImages: IMAGES,
    }))!;
    expect(pushes).toContainEqual({ push: 'focus', data: { seat: 'worker@duo' } });
    pushes.length = 0;
    for (const fn of f.appHandlers['second-instance']!) fn({}, ['/opt/Rigdesk/rigdesk', 'rigdesk://seat/duo/lead']);
    expect(pushes).toEqual([{ push: 'focus', data: { seat: 'lead@duo' } }]);
    for (const fn of f.appHandlers['open-url']!) fn({ preventDefault: () => undefined }, 'rigdesk://seat/duo/worker');
    expect(pushes).toContainEqual({ push: 'focus', data: { seat: 'worker@duo' } });
    pushes.length = 0;
    for (const bad of [
      'rigdesk://seat/duo/ghost',
      'rigdesk://seat/duo',
      'rigdesk://settings/x/y',
      'rigdesk://seat/duo/lead#x',
      'RIGDESK://seat/duo/../lead',
      'rigdesk://seat/%2e%2e/lead',
    ]) {
      for (const fn of f.appHandlers['second-instance']!) fn({}, ['/x', bad]);
    }
    expect(pushes).toEqual([]);
    expect(shell.deepLinks.refused.length).toBeGreaterThanOrEqual(6);
    expect(deepLinkInArgv(['/x', '/home/u/rigdesk:notes.txt'])).toBeUndefined();
    c.pushes.close();
  });

  it('the tray menu puts the rigdesk command on PATH through the engine and says where and how to remove it', async () => {
    const f = fakeElectron();
    const c = ctx();
    await startShell({ api: f.api, ctx: c, argv: [], preloadPath: '/p', rendererRoot: ROOT, trayImages: IMAGES });
    const items = f.tray.menu!.template;
    expect(items.map((i) => i.label).filter(Boolean)).toEqual([
      'Open Rigdesk',
      'Put the rigdesk command on PATH…',
      'Quit Rigdesk',
    ]);
    const dir = join(world.root, 'menu-bin');
    engine.deps.env.RIGDESK_SHIM_DIR = dir;
    try {
      const click: Listener | undefined = items.find((i) => i.label?.startsWith('Put'))?.click;
      click!();
      await waitFor(() => f.notifications.length > 0, { what: 'notification' });
      expect(f.notifications[0]).toMatchObject({
        title: `rigdesk is at ${join(dir, 'rigdesk')}`,
        body: expect.stringMatching(/Remove it with: rigdesk install-shim --remove/),
      });
      expect(f.notifications[0]!.body).toContain(`${dir} is not on PATH`);
      expect(existsSync(join(dir, 'rigdesk'))).toBe(true);
    } finally {
      delete engine.deps.env.RIGDESK_SHIM_DIR;
      c.pushes.close();
    }
  });

  it('single instance: without the lock the app quits before creating any window', async () => {
    const f = fakeElectron({ lock: false });
    const c = ctx();
    expect(
      await startShell({
        api: f.api,
        ctx: c,
        argv: ['rigdesk://seat/duo/lead'],
        preloadPath: '/p',
        rendererRoot: ROOT,
        trayImages: IMAGES,
      }),
    ).toBeUndefined();
    expect(f.log).toEqual(['quit']);
    expect(f.windowOpts).toBeUndefined();
    c.pushes.close();
  });
});
