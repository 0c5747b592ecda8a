import type { WindowHubContext } from '../window-hub/connection';
import { DeepLinkRouter, deepLinkInArgv, PROTOCOL } from './deeplink';
import { wireIpc } from './ipc';
import { trayMenu } from './menu';
import { NeedsInputNotifier } from './notify';
import { TrayController, type TrayImages } from './tray';
import type { ElectronApi, WindowLike } from './types';
import { registerRendererScheme, RENDERER_URL, serveRenderer } from './renderer-protocol';
import { createMainWindow, focusWindow } from './window';

export interface ShellOptions {
  api: ElectronApi;
  ctx: WindowHubContext;
  argv: readonly string[];
  preloadPath: string;
  /** The built renderer's folder, served to the window as rigdesk-app://renderer/. */
  rendererRoot: string;
  trayImages: TrayImages;
  iconPath?: string;
  /** Protocol registration for development runs (process.execPath plus the app's path). */
  protocolClient?: { path: string; args: string[] };
}

export interface Shell {
  /** undefined when another instance holds the lock (this one quits). */
  window(): WindowLike | undefined;
  deepLinks: DeepLinkRouter;
  tray?: TrayController;
  notifier: NeedsInputNotifier;
}

/**
 * The Electron shell's wiring, with Electron injected: one instance (a second one hands its deep
 * link to the first and quits), one hardened window, the tray and notifications fed by the same
 * seat pushes the renderer gets, and every deep link through one router.
 */
export async function startShell(o: ShellOptions): Promise<Shell | undefined> {
  const { api, ctx } = o;
  if (!api.app.requestSingleInstanceLock()) {
    api.app.quit();
    return undefined;
  }
  registerRendererScheme(api.protocol);
  // Reviewed (electronegativity asks for a review of every protocol handler): rigdesk:// is required,
  // and every link goes through DeepLinkRouter.route (parseDeepLink's one exact form, seat must exist).
  if (o.protocolClient)
    api.app.setAsDefaultProtocolClient(PROTOCOL, o.protocolClient.path, o.protocolClient.args); // eng-disable PROTOCOL_HANDLER_JS_CHECK
  else api.app.setAsDefaultProtocolClient(PROTOCOL); // eng-disable PROTOCOL_HANDLER_JS_CHECK

  let win: WindowLike | undefined;
  const focusSeat = (seat: string) => {
    ctx.pushes.focus(seat);
    focusWindow(win);
  };
  const deepLinks = new DeepLinkRouter((seat) => ctx.engine.store.rigs.seat(seat) !== undefined, focusSeat);
  const notifier = new NeedsInputNotifier(api, focusSeat, (seat) => ctx.pushes.watching.isWatched(seat));
  // Links that arrive before the window exists are routed once it has loaded.
  const early: string[] = [];
  const route = (link: string | undefined) => {
    if (!link) return;
    if (win) deepLinks.route(link);
    else early.push(link);
  };
  api.app.on('second-instance', (_e, argv) => {
    route(deepLinkInArgv(argv));
    focusWindow(win);
  });
  api.app.on('open-url', (e, url) => {
    e.preventDefault();
    route(url);
  });
  route(deepLinkInArgv(o.argv));

  await api.app.whenReady();
  serveRenderer(api.protocol, o.rendererRoot);
  const ipc = wireIpc(api.ipcMain, ctx, { rendererUrl: RENDERER_URL });
  win = createMainWindow(api, { preloadPath: o.preloadPath, rendererUrl: RENDERER_URL, iconPath: o.iconPath });
  ipc.attach(win.webContents);
  const trayIcon = api.createTray(o.trayImages.idle);
  const tray = new TrayController(trayIcon, o.trayImages);
  trayIcon.setContextMenu(api.createMenu(trayMenu(api, ctx, () => focusWindow(win))));
  const off = ctx.pushes.subscribe((m) => {
    if (m.push === 'event' && m.data.kind.startsWith('decision.'))
      tray.update(ctx.pushes.seats, ctx.pushes.openDecisionSeats());
    if (m.push !== 'seats') return;
    tray.update(m.data.seats, ctx.pushes.openDecisionSeats());
    notifier.update(m.data.seats);
  });
  win.on('closed', () => {
    off();
    win = undefined;
  });
  await win.loadURL(RENDERER_URL);
  focusWindow(win);
  for (const link of early.splice(0)) deepLinks.route(link);
  return { window: () => win, deepLinks, tray, notifier };
}
