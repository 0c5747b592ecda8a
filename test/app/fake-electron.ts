import type { ElectronApi, WebContentsLike } from '../../src/main/shell/types';

/**
 * A recording FAKE of the slice of Electron the shell uses (the Electron binary cannot run on the
 * build machines): what it notified, what the tray shows. The shell under it is the real one.
 */
export function fakeElectronApi() {
  const notifications: { title: string; body: string; click: () => void }[] = [];
  const tray = { image: '', tooltip: '' };
  const noop = () => undefined;
  const webContents: WebContentsLike = {
    id: 1,
    on: noop,
    setWindowOpenHandler: noop,
    send: noop,
    isDestroyed: () => false,
    session: { setPermissionRequestHandler: noop, webRequest: { onHeadersReceived: noop } },
  };
  const api: ElectronApi = {
    app: {
      requestSingleInstanceLock: () => true,
      quit: noop,
      whenReady: async () => undefined,
      on: noop,
      setAsDefaultProtocolClient: () => true,
    },
    protocol: { registerSchemesAsPrivileged: noop, handle: noop },
    ipcMain: { handle: noop, on: noop },
    createWindow: () => ({
      webContents,
      loadURL: async () => undefined,
      show: noop,
      focus: noop,
      restore: noop,
      isMinimized: () => false,
      isDestroyed: () => false,
      on: noop,
    }),
    createTray: () => ({
      setImage: (i) => void (tray.image = i),
      setToolTip: (t) => void (tray.tooltip = t),
      on: noop,
    }),
    createNotification: (o) => {
      const n = { ...o, click: noop as () => void };
      return {
        on: (_e, fn) => void (n.click = fn),
        show: () => void notifications.push(n),
      };
    },
    notificationsSupported: () => true,
  };
  return { api, notifications, tray };
}
