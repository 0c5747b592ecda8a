import type {
  BrowserWindowConstructorOptions,
  CustomScheme,
  Event as ElectronEvent,
  MenuItem,
  MenuItemConstructorOptions,
} from 'electron';
import { EventEmitter } from 'node:events';
import type { ElectronApi } from '../../src/main/shell/types';

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

export type Listener = (...a: any[]) => unknown;

/** A recording fake of the Electron API slice the shell uses, typed against Electron's own types. */
export function fakeElectron(opts: { lock?: boolean } = {}) {
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
      const noop: () => void = () => undefined;
      const n = {
        title: o.title ?? '',
        body: o.body ?? '',
        clickFn: noop,
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
