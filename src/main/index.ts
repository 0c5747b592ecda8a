// The Electron shell's entry: builds the real Electron API for the injected shell wiring
// (src/main/shell), starts the engine in this process and serves its socket so the `rigdesk`
// CLI (and `rigdesk open <seat>`) talks to this app's engine, which then runs what `rigdesk serve`
// runs besides requests (reconcile, snapshots, the queue waker, the activity monitor).
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { app, BrowserWindow, ipcMain, Menu, Notification, protocol, Tray } from 'electron';
import { liveEngineDeps } from './engine/context';
import { Engine } from './engine/engine';
import { resolveHome } from './engine/home';
import { claimEngine } from './engine/services/background';
import { reportLine } from '../cli/format';
import { PushHub } from './host/pushes';
import { startShell } from './shell/app';
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

async function main(): Promise<void> {
  const layout = resolveHome(process.env);
  mkdirSync(layout.home, { recursive: true, mode: 0o700 });
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
  if (!shell) return; // another instance has the lock and got our deep link
  const claimed = await claimEngine(engine, (r) => process.stderr.write(reportLine(r)));
  app.on('window-all-closed', () => app.quit());
  app.on('before-quit', () => {
    ctx.pushes.close();
    void claimed.close();
  });
}

void main();
