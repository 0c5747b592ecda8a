/**
 * The slice of Electron the shell uses, as plain interfaces: src/main/index.ts passes the real
 * modules, tests pass fakes (the Electron binary cannot run on the build machines).
 */
export interface WebContentsLike {
  id: number;
  on(event: 'will-navigate' | 'will-redirect', fn: (e: { preventDefault(): void }, url: string) => void): void;
  on(event: 'will-attach-webview', fn: (e: { preventDefault(): void }) => void): void;
  on(event: 'destroyed', fn: () => void): void;
  setWindowOpenHandler(fn: (d: { url: string }) => { action: 'deny' | 'allow' }): void;
  send(channel: string, ...args: unknown[]): void;
  isDestroyed(): boolean;
  session: {
    setPermissionRequestHandler(fn: (wc: unknown, permission: string, cb: (ok: boolean) => void) => void): void;
    webRequest: {
      onHeadersReceived(
        fn: (
          d: { responseHeaders?: Record<string, string[]> },
          cb: (r: { responseHeaders: Record<string, string[]> }) => void,
        ) => void,
      ): void;
    };
  };
}

export interface WindowLike {
  webContents: WebContentsLike;
  loadURL(url: string): Promise<void>;
  show(): void;
  focus(): void;
  restore(): void;
  isMinimized(): boolean;
  isDestroyed(): boolean;
  on(event: 'closed', fn: () => void): void;
}

export interface TrayLike {
  setImage(image: string): void;
  setToolTip(text: string): void;
  on(event: 'click', fn: () => void): void;
  setContextMenu?(menu: unknown): void;
}

export interface NotificationLike {
  on(event: 'click', fn: () => void): void;
  show(): void;
}

export interface IpcMainLike {
  handle(channel: string, fn: (e: IpcEventLike, ...args: unknown[]) => unknown): void;
  on(channel: string, fn: (e: IpcEventLike, ...args: unknown[]) => void): void;
}
export interface IpcEventLike {
  sender: { id: number };
  senderFrame?: { url: string } | null;
}

export interface AppLike {
  requestSingleInstanceLock(): boolean;
  quit(): void;
  whenReady(): Promise<void>;
  on(event: 'second-instance', fn: (e: unknown, argv: string[]) => void): void;
  on(event: 'open-url', fn: (e: { preventDefault(): void }, url: string) => void): void;
  on(event: 'window-all-closed' | 'before-quit', fn: () => void): void;
  setAsDefaultProtocolClient(protocol: string, path?: string, args?: string[]): boolean;
}

/** An Electron menu template item, as far as the shell builds them. */
export interface MenuItemLike {
  label?: string;
  type?: 'separator';
  click?: () => void;
}

/** Electron's `protocol`, as far as the shell serves the renderer through it. */
export interface ProtocolLike {
  registerSchemesAsPrivileged(schemes: { scheme: string; privileges: Record<string, boolean> }[]): void;
  handle(scheme: string, fn: (req: { url: string; method: string }) => Promise<Response>): void;
}

export interface ElectronApi {
  app: AppLike;
  protocol: ProtocolLike;
  ipcMain: IpcMainLike;
  createWindow(options: Record<string, unknown>): WindowLike;
  createTray(image: string): TrayLike;
  createNotification(options: { title: string; body: string; silent?: boolean }): NotificationLike;
  notificationsSupported(): boolean;
  /** Menu.buildFromTemplate; without it the tray has no menu. */
  createMenu?(template: MenuItemLike[]): unknown;
}
