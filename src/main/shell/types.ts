/**
 * The slice of Electron the shell uses, declared from Electron's own types: src/main/index.ts passes
 * the real modules and classes (no cast, so tsc fails there when this slice and Electron disagree),
 * and the tests pass recording fakes checked against the same types (the Electron binary cannot run
 * on the build machines).
 *
 * Methods are picked from Electron's classes. Event subscriptions are the exception: Electron's
 * `on` returns `this` (the whole class), which no fake can be, so each event the shell listens to is
 * one overload here with Electron's own listener type, returning `unknown`.
 */
import type {
  App,
  BrowserWindow,
  BrowserWindowConstructorOptions,
  Event,
  HandlerDetails,
  HeadersReceivedResponse,
  IpcMain,
  IpcMainEvent,
  IpcMainInvokeEvent,
  KeyboardEvent,
  Menu,
  MenuItemConstructorOptions,
  Notification,
  NotificationConstructorOptions,
  OnHeadersReceivedListenerDetails,
  Protocol,
  Session,
  Tray,
  WebContents,
  WebContentsWillNavigateEventParams,
  WebContentsWillRedirectEventParams,
  WindowOpenHandlerResponse,
} from 'electron';

export type { BrowserWindowConstructorOptions, MenuItemConstructorOptions, NotificationConstructorOptions };

export interface WebContentsLike extends Pick<WebContents, 'id' | 'send' | 'isDestroyed'> {
  on(event: 'will-navigate', listener: (details: Event<WebContentsWillNavigateEventParams>) => void): unknown;
  on(event: 'will-redirect', listener: (details: Event<WebContentsWillRedirectEventParams>) => void): unknown;
  on(event: 'will-attach-webview', listener: (event: Event) => void): unknown;
  on(event: 'destroyed', listener: () => void): unknown;
  setWindowOpenHandler(handler: (details: HandlerDetails) => WindowOpenHandlerResponse): void;
  session: SessionLike;
}

export interface SessionLike extends Pick<Session, 'setPermissionRequestHandler'> {
  webRequest: {
    onHeadersReceived(
      listener:
        | ((details: OnHeadersReceivedListenerDetails, callback: (r: HeadersReceivedResponse) => void) => void)
        | null,
    ): void;
  };
}

export interface WindowLike
  extends Pick<BrowserWindow, 'loadURL' | 'show' | 'focus' | 'restore' | 'isMinimized' | 'isDestroyed'> {
  webContents: WebContentsLike;
  on(event: 'closed', listener: () => void): unknown;
}

export interface TrayLike extends Pick<Tray, 'setImage' | 'setToolTip' | 'setContextMenu'> {
  on(event: 'click', listener: (event: KeyboardEvent) => void): unknown;
}

export interface NotificationLike extends Pick<Notification, 'show'> {
  on(event: 'click', listener: (event: Event) => void): unknown;
}

export type IpcMainLike = Pick<IpcMain, 'handle'> & {
  on(channel: string, listener: (event: IpcMainEvent, ...args: unknown[]) => void): unknown;
};
/** What the IPC wiring reads of an event: who sent it, from which frame. */
export type IpcEventLike = Pick<IpcMainInvokeEvent | IpcMainEvent, 'sender' | 'senderFrame'>;

export interface AppLike
  extends Pick<App, 'requestSingleInstanceLock' | 'quit' | 'whenReady' | 'setAsDefaultProtocolClient'> {
  on(event: 'second-instance', listener: (event: Event, argv: string[]) => void): unknown;
  on(event: 'open-url', listener: (event: Event, url: string) => void): unknown;
  on(event: 'window-all-closed', listener: () => void): unknown;
  on(event: 'before-quit', listener: (event: Event) => void): unknown;
}

export type ProtocolLike = Pick<Protocol, 'registerSchemesAsPrivileged' | 'handle'>;

/** An Electron menu template item, as far as the shell builds them. */
export type MenuItemLike = Pick<MenuItemConstructorOptions, 'label' | 'type' | 'click'>;

export interface ElectronApi {
  app: AppLike;
  protocol: ProtocolLike;
  ipcMain: IpcMainLike;
  createWindow(options: BrowserWindowConstructorOptions): WindowLike;
  createTray(image: string): TrayLike;
  createNotification(options: NotificationConstructorOptions): NotificationLike;
  notificationsSupported(): boolean;
  /** Menu.buildFromTemplate. */
  createMenu(template: MenuItemConstructorOptions[]): Menu;
}
