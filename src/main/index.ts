// The Electron shell's entry: builds the real Electron API for the injected shell wiring
// (src/main/shell), starts the engine in this process and serves its socket so the `rigdesk`
// CLI (and `rigdesk open <seat>`) talks to this app's engine, which then runs what `rigdesk serve`
// runs besides requests (reconcile, snapshots, the queue waker, the activity monitor).
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { app, BrowserWindow, dialog, ipcMain, Menu, Notification, protocol, Tray } from 'electron';
import { liveEngineDeps } from './engine/context';
import { Engine } from './engine/engine';
import { resolveHome } from './engine/home';
import { secureHome } from './engine/home-safety';
import { sqliteNativeBinding } from './engine/sqlite-binding';
import { claimEngine } from './engine/background';
import { watchForEnd, within } from './engine/lifetime';
import { reportLine } from '../cli/format';
import { PushHub } from './window-hub/pushes';
import { type Shell, startShell } from './shell/app';
import type { ElectronApi } from './shell/types';
import { TerminalHub } from './terminal/hub';

// The real Electron behind the shell's injected API: the modules and classes themselves, no cast, so
// tsc checks them against src/main/shell/types.ts (the tests' fakes are checked against the same).
const api: ElectronApi = {
  app,
  ipcMain,
  protocol,
  // webPreferences spelled out at the constructor (same values as windowOptions(), which the
  // wiring tests check) so electronegativity's static checks can see them.
  createWindow: (o) =>
    new BrowserWindow({
      ...o,
      webPreferences: {
        // Reviewed (electronegativity asks for a review of every preload): sandboxed, no Node; it
        // exposes the contract's four forwarding functions through contextBridge and nothing else.
        preload: o.webPreferences?.preload, // eng-disable PRELOAD_JS_CHECK
        contextIsolation: true,
        sandbox: true,
        nodeIntegration: false,
        nodeIntegrationInWorker: false,
        nodeIntegrationInSubFrames: false,
        webviewTag: false,
        webSecurity: true,
        allowRunningInsecureContent: false,
        experimentalFeatures: false,
        navigateOnDragDrop: false,
        disableBlinkFeatures: 'Auxclick',
        spellcheck: false,
      },
    }),
  createTray: (image) => new Tray(image),
  createNotification: (o) => new Notification(o),
  notificationsSupported: () => Notification.isSupported(),
  createMenu: (template) => Menu.buildFromTemplate(template),
};

/** Started at load; resolves to the shell (undefined when another instance has the lock and got our link). */
export const started: Promise<Shell | undefined> = main().catch((e: unknown) => {
  dialog.showErrorBox('Rigdesk could not start', e instanceof Error ? (e.stack ?? e.message) : String(e));
  app.exit(1);
  return undefined;
});

async function main(): Promise<Shell | undefined> {
  // The store needs better-sqlite3 built for this Electron (scripts/desktop.mjs builds it beside
  // Node's); without it say so, rather than fail on the first query with an ABI error.
  const binding = sqliteNativeBinding();
  if (binding && !existsSync(binding)) {
    dialog.showErrorBox(
      'Rigdesk cannot open its store',
      `better-sqlite3 has no build for this Electron (ABI ${process.versions.modules}): ${binding} is missing.\nRun ./scripts/setup where github.com and electronjs.org answer, then start Rigdesk again.`,
    );
    app.exit(1);
    return undefined;
  }
  const layout = resolveHome(process.env);
  const safe = secureHome(layout.home, process.getuid?.(), { create: true });
  if (!safe.ok) {
    dialog.showErrorBox('Rigdesk will not use its home', `${safe.message}\n${safe.hint ?? ''}`);
    app.exit(1);
    return undefined;
  }
  const engine = new Engine(liveEngineDeps(process.env, { layout }));
  // Activity events: this engine's monitor (claimEngine below) or, if another engine serves this
  // home, that engine's, writes them to the same store.
  const ctx = { engine, terminals: new TerminalHub(engine), pushes: new PushHub(engine, { activityEvents: true }) };
  const resources = app.isPackaged ? process.resourcesPath : join(__dirname, '..', '..', 'resources');
  const shell = await startShell({
    api,
    ctx,
    argv: process.argv,
    preloadPath: join(__dirname, '..', 'preload', 'index.js'),
    rendererRoot: join(__dirname, '..', 'renderer'),
    trayImages: { idle: join(resources, 'tray.png'), attention: join(resources, 'tray-attention.png') },
    iconPath: join(resources, 'icon.png'),
    ...(app.isPackaged ? {} : { protocolClient: { path: process.execPath, args: [app.getAppPath()] } }),
  });
  if (!shell) return undefined;
  const claimed = await claimEngine(engine, (r) => process.stderr.write(reportLine(r)));
  app.on('window-all-closed', () => app.quit());
  // Every process the engine started ends before the app does: on quit, and on a signal or an
  // uncaught error (which would otherwise end the process and leave them behind).
  const watch = watchForEnd();
  let closing: Promise<void> | undefined;
  const closeEngine = () =>
    (closing ??= within(5_000, async () => {
      ctx.pushes.close();
      await claimed.close();
      await engine.close();
    }).finally(() => watch.dispose()));
  // Electron does not wait for async work in before-quit: the first quit is held until the engine
  // socket is given back (so the next start finds no stale one) and its processes have ended,
  // then quits for good.
  app.on('before-quit', (e) => {
    if (closing) return;
    e.preventDefault();
    void closeEngine().finally(() => app.quit());
  });
  void watch.reason.then((why) => {
    if (why.kind === 'fatal') process.stderr.write(`rigdesk: INTERNAL: ${why.error.stack ?? why.error.message}\n`);
    void closeEngine().finally(() => app.exit(why.kind === 'fatal' ? 1 : 0));
  });
  return shell;
}
