import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { PsRow } from '../../src/shared/contract';
import { PushHub } from '../../src/main/host/pushes';
import { startShell } from '../../src/main/shell/app';
import { deepLinkInArgv } from '../../src/main/shell/deeplink';
import { IPC } from '../../src/preload/channels';
import { trayState } from '../../src/main/shell/tray';
import type { ElectronApi } from '../../src/main/shell/types';
import type {
  BrowserWindowConstructorOptions,
  CustomScheme,
  Event as ElectronEvent,
  MenuItem,
  MenuItemConstructorOptions,
} from 'electron';
import { EventEmitter } from 'node:events';
import { windowOptions } from '../../src/main/shell/window';
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

/**
 * A menu as Electron's Menu.buildFromTemplate returns it, as far as a fake can be one: the
 * template it was built from, and Menu's own members (checked by tsc against Electron's class).
 */
class FakeMenu extends EventEmitter {
  readonly items: MenuItem[] = [];
  constructor(readonly template: MenuItemConstructorOptions[]) {
    super();
  }
  append(): void {}
  insert(): void {}
  popup(): void {}
  closePopup(): void {}
  getMenuItemById(): null {
    return null;
  }
}

// biome-ignore lint/suspicious/noExplicitAny: the fake records Electron's listeners of every shape
type Listener = (...a: any[]) => unknown;

/** A recording fake of the Electron API slice the shell uses, typed against Electron's own types. */
function fakeElectron(opts: { lock?: boolean } = {}) {
  const log: string[] = [];
  const appHandlers: Record<string, Listener[]> = {};
  const wcHandlers: Record<string, Listener[]> = {};
  const ipcHandle: Record<string, Listener> = {};
  const sent: { channel: string; args: unknown[] }[] = [];
  const notifications: { title: string; body: string; click(): void }[] = [];
  let windowOpts: BrowserWindowConstructorOptions | undefined;
  // Kept loose: the test calls them with the few fields the shell reads.
  let openHandler: Listener | undefined;
  let permission: Listener | undefined;
  let headers: Listener | undefined;
  const tray = { image: '', tooltip: '', menu: undefined as FakeMenu | undefined };
  const schemes: CustomScheme[] = [];
  const protocolHandlers: Record<string, (req: Request) => Response | Promise<Response>> = {};
  let ready = false;
  const on = (into: Record<string, Listener[]>) => (ev: string, fn: Listener) => void (into[ev] ??= []).push(fn);
  const api: ElectronApi = {
    protocol: {
      registerSchemesAsPrivileged: (list) => {
        // Electron only honours this before the app is ready.
        if (ready) throw new Error('registerSchemesAsPrivileged after ready');
        schemes.push(...list);
      },
      handle: (scheme, fn) => void (protocolHandlers[scheme] = fn),
    },
    app: {
      requestSingleInstanceLock: () => opts.lock ?? true,
      quit: () => void log.push('quit'),
      whenReady: async () => void (ready = true),
      on: on(appHandlers),
      setAsDefaultProtocolClient: (p) => (log.push(`protocol ${p}`), true),
    },
    ipcMain: {
      handle: (ch, fn) => void (ipcHandle[ch] = fn),
      on: (ch, fn) => void (ipcHandle[`on:${ch}`] = fn),
    },
    createWindow: (o) => {
      windowOpts = o;
      return {
        webContents: {
          id: 7,
          on: on(wcHandlers),
          setWindowOpenHandler: (fn) => void (openHandler = fn),
          send: (channel, ...args) => void sent.push({ channel, args }),
          isDestroyed: () => false,
          session: {
            setPermissionRequestHandler: (fn) => void (permission = fn ?? undefined),
            webRequest: { onHeadersReceived: (fn) => void (headers = fn ?? undefined) },
          },
        },
        loadURL: async (u) => void log.push(`load ${u}`),
        show: () => void log.push('show'),
        focus: () => void log.push('focus'),
        restore: () => void log.push('restore'),
        isMinimized: () => false,
        isDestroyed: () => false,
        on: () => undefined,
      };
    },
    createTray: () => ({
      setImage: (i) => void (tray.image = String(i)),
      setToolTip: (t) => void (tray.tooltip = t),
      on: () => undefined,
      setContextMenu: (m) => void (tray.menu = m instanceof FakeMenu ? m : undefined),
    }),
    createMenu: (template) => new FakeMenu(template),
    createNotification: (o) => {
      const n = {
        title: o.title ?? '',
        body: o.body ?? '',
        clickFn: () => undefined as void,
        click: () => n.clickFn(),
      };
      notifications.push(n);
      return { on: (_e, fn) => void (n.clickFn = () => fn(event())), show: () => void log.push(`notify ${o.title}`) };
    },
    notificationsSupported: () => true,
  };
  const nav = (ev: string, url: string) => {
    let prevented = false;
    for (const fn of wcHandlers[ev] ?? []) fn({ url, preventDefault: () => (prevented = true) });
    return prevented;
  };
  return {
    api,
    log,
    schemes,
    protocolHandlers,
    appHandlers,
    ipcHandle,
    sent,
    notifications,
    tray,
    nav,
    get windowOpts() {
      return windowOpts;
    },
    get openHandler() {
      return openHandler;
    },
    get permission() {
      return permission;
    },
    get headers() {
      return headers;
    },
  };
}

/** Electron's Event, as a fake passes it to a listener. */
function event(): ElectronEvent {
  return { preventDefault: () => undefined, defaultPrevented: false };
}

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
