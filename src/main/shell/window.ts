import type { BrowserWindowConstructorOptions, ElectronApi, WebContentsLike, WindowLike } from './types';

/** The one set of window options; electronegativity and the wiring tests read these. */
export function windowOptions(preloadPath: string, iconPath?: string): BrowserWindowConstructorOptions {
  return {
    width: 1280,
    height: 820,
    // Below this the seat rail, three panes and the side panel no longer fit side by side.
    minWidth: 960,
    minHeight: 600,
    show: false,
    title: 'Rigdesk',
    backgroundColor: '#0d1117',
    ...(iconPath ? { icon: iconPath } : {}),
    webPreferences: {
      preload: preloadPath,
      contextIsolation: true,
      sandbox: true,
      nodeIntegration: false,
      nodeIntegrationInWorker: false,
      nodeIntegrationInSubFrames: false,
      webviewTag: false,
      webSecurity: true,
      allowRunningInsecureContent: false,
      experimentalFeatures: false,
      disableBlinkFeatures: 'Auxclick',
      navigateOnDragDrop: false,
      spellcheck: false,
    },
  };
}

/**
 * The window shows the bundled renderer and nothing else: navigation away, new windows, webviews
 * and every permission request (camera, notifications from the page, ...) are refused, and each
 * response carries the strict CSP.
 */
export function harden(wc: WebContentsLike, rendererUrl: string): void {
  const home = new URL(rendererUrl);
  const same = (u: string) => {
    try {
      const x = new URL(u);
      return x.protocol === home.protocol && x.host === home.host && x.pathname === home.pathname;
    } catch {
      return false;
    }
  };
  wc.on('will-navigate', (e) => {
    if (!same(e.url)) e.preventDefault();
  });
  wc.on('will-redirect', (e) => {
    if (!same(e.url)) e.preventDefault();
  });
  wc.on('will-attach-webview', (e) => e.preventDefault());
  wc.setWindowOpenHandler(() => ({ action: 'deny' }));
  wc.session.setPermissionRequestHandler((_wc, _permission, cb) => cb(false));
  // The renderer's own responses carry WINDOW_CSP already (renderer-protocol.ts); this covers any
  // other response the window's session sees. The literal is spelled out (not imported) so
  // electronegativity can parse and check it; a test keeps it equal to WINDOW_CSP.
  wc.session.webRequest.onHeadersReceived((d, cb) =>
    cb({
      responseHeaders: {
        ...(d.responseHeaders ?? {}),
        'Content-Security-Policy': [
          "default-src rigdesk-app://renderer; script-src rigdesk-app://renderer; style-src rigdesk-app://renderer 'unsafe-inline'; img-src rigdesk-app://renderer data:; connect-src rigdesk-app://renderer; object-src 'none'; base-uri 'none'; frame-ancestors 'none'; form-action 'none'",
        ],
      },
    }),
  );
}

export function createMainWindow(
  api: ElectronApi,
  opts: { preloadPath: string; rendererUrl: string; iconPath?: string },
): WindowLike {
  const win = api.createWindow(windowOptions(opts.preloadPath, opts.iconPath));
  harden(win.webContents, opts.rendererUrl);
  return win;
}

export function focusWindow(win: WindowLike | undefined): void {
  if (!win || win.isDestroyed()) return;
  if (win.isMinimized()) win.restore();
  win.show();
  win.focus();
}
