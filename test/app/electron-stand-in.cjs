'use strict';
// A recording stand-in for the `electron` module, for running the BUILT main and preload bundles
// under Node: the Electron binary cannot be had on the build machines. `install()` resolves every
// require('electron') to this file (a Module._resolveFilename shim, in tests only). Each call the
// bundle makes is appended, as one JSON line, to $RIGDESK_STAND_IN_LOG (synchronously, so a process
// that quits at once loses nothing). Handlers the bundle registers stay here; the test drives them
// over the child's IPC channel (`control()`): serve a renderer URL, send an IPC message, fire an
// event. RIGDESK_STAND_IN_LOCK=taken makes another instance hold the single-instance lock.
const Module = require('node:module');
const { EventEmitter } = require('node:events');
const { appendFileSync } = require('node:fs');
const { dirname, resolve } = require('node:path');

const calls = [];
function record(what, detail = {}) {
  const entry = { what, ready: state.ready, ...detail };
  calls.push(entry);
  if (process.env.RIGDESK_STAND_IN_LOG) appendFileSync(process.env.RIGDESK_STAND_IN_LOG, `${JSON.stringify(entry)}\n`);
}
const state = { ready: false, protocolHandlers: {}, ipcHandle: {}, ipcOn: {}, windows: [], trays: [], exposed: {} };

function install() {
  const original = Module._resolveFilename;
  Module._resolveFilename = function (request, ...rest) {
    return request === 'electron' ? __filename : original.call(this, request, ...rest);
  };
  return () => void (Module._resolveFilename = original);
}

function electronEvent(extra = {}) {
  const e = { defaultPrevented: false, ...extra };
  e.preventDefault = () => void (e.defaultPrevented = true);
  return e;
}

class StandInApp extends EventEmitter {
  isPackaged = false;
  requestSingleInstanceLock() {
    const ok = process.env.RIGDESK_STAND_IN_LOCK !== 'taken';
    record('app.requestSingleInstanceLock', { granted: ok });
    return ok;
  }
  setAsDefaultProtocolClient(protocol, path, args) {
    record('app.setAsDefaultProtocolClient', { protocol, path, args });
    return true;
  }
  getAppPath() {
    // As `electron <dir>` does: the folder of the package the main script belongs to.
    return resolve(dirname(process.argv[1]), '..', '..');
  }
  whenReady() {
    return new Promise((r) =>
      setImmediate(() => {
        if (!state.ready) {
          state.ready = true;
          record('app.ready');
          this.emit('ready');
        }
        r();
      }),
    );
  }
  on(event, fn) {
    record('app.on', { event });
    return super.on(event, fn);
  }
  quit() {
    record('app.quit');
    const e = electronEvent();
    this.emit('before-quit', e);
    if (e.defaultPrevented) return;
    record('app.exited', { code: 0 });
    setImmediate(() => process.exit(0));
  }
  exit(code = 0) {
    record('app.exited', { code });
    process.exit(code);
  }
}
const app = new StandInApp();

class StandInWebContents extends EventEmitter {
  static nextId = 1;
  id = StandInWebContents.nextId++;
  sent = [];
  openHandler = undefined;
  session = {
    setPermissionRequestHandler: (fn) => {
      record('session.setPermissionRequestHandler');
      this.permission = fn;
    },
    webRequest: {
      onHeadersReceived: (fn) => {
        record('session.webRequest.onHeadersReceived');
        this.headers = fn;
      },
    },
  };
  on(event, fn) {
    record('webContents.on', { event });
    return super.on(event, fn);
  }
  setWindowOpenHandler(fn) {
    record('webContents.setWindowOpenHandler');
    this.openHandler = fn;
  }
  send(channel, ...args) {
    record('webContents.send', { channel, args: JSON.parse(JSON.stringify(args)) });
  }
  isDestroyed() {
    return false;
  }
}

class BrowserWindow extends EventEmitter {
  constructor(options) {
    super();
    record('new BrowserWindow', { options });
    this.webContents = new StandInWebContents();
    state.windows.push(this);
  }
  loadURL(url) {
    record('window.loadURL', { url });
    return Promise.resolve();
  }
  show() {
    record('window.show');
  }
  focus() {
    record('window.focus');
  }
  restore() {
    record('window.restore');
  }
  isMinimized() {
    return false;
  }
  isDestroyed() {
    return false;
  }
  static getAllWindows() {
    return state.windows;
  }
}

class Tray extends EventEmitter {
  constructor(image) {
    super();
    record('new Tray', { image });
    state.trays.push(this);
  }
  setImage(image) {
    record('tray.setImage', { image });
  }
  setToolTip(text) {
    record('tray.setToolTip', { text });
  }
  setContextMenu(menu) {
    record('tray.setContextMenu', { labels: menu ? menu.template.map((i) => i.label ?? i.type) : null });
  }
}

class Notification extends EventEmitter {
  static isSupported() {
    return true;
  }
  constructor(options) {
    super();
    record('new Notification', { options });
  }
  show() {
    record('notification.show');
  }
}

const Menu = {
  buildFromTemplate(template) {
    record('Menu.buildFromTemplate', { labels: template.map((i) => i.label ?? i.type) });
    return { template };
  },
};

const protocol = {
  registerSchemesAsPrivileged(schemes) {
    record('protocol.registerSchemesAsPrivileged', { schemes });
  },
  handle(scheme, fn) {
    record('protocol.handle', { scheme });
    state.protocolHandlers[scheme] = fn;
  },
};

const ipcMain = {
  handle(channel, fn) {
    record('ipcMain.handle', { channel });
    state.ipcHandle[channel] = fn;
  },
  on(channel, fn) {
    record('ipcMain.on', { channel });
    state.ipcOn[channel] = fn;
    return ipcMain;
  },
};

const dialog = {
  showErrorBox(title, content) {
    record('dialog.showErrorBox', { title, content });
  },
};

// The preload's side.
const contextBridge = {
  exposeInMainWorld(key, api) {
    record('contextBridge.exposeInMainWorld', { key, members: Object.keys(api) });
    state.exposed[key] = api;
  },
};
class IpcRenderer extends EventEmitter {
  invoke(channel, ...args) {
    record('ipcRenderer.invoke', { channel, args });
    return Promise.resolve({ echoed: args });
  }
  send(channel, ...args) {
    record('ipcRenderer.send', { channel, args: args.map((a) => (a instanceof Uint8Array ? [...a] : a)) });
  }
  on(channel, fn) {
    record('ipcRenderer.on', { channel });
    return super.on(channel, fn);
  }
  removeListener(channel, fn) {
    record('ipcRenderer.removeListener', { channel });
    return super.removeListener(channel, fn);
  }
}
const ipcRenderer = new IpcRenderer();

/** What the test can ask the process it runs in, over the child's IPC channel. */
const ops = {
  async serve({ url, method = 'GET' }) {
    const fn = state.protocolHandlers[new URL(url).protocol.slice(0, -1)];
    if (!fn) return { error: `no handler for ${url}` };
    const r = await fn(new Request(url, { method }));
    return { status: r.status, headers: Object.fromEntries(r.headers), body: await r.text() };
  },
  async invoke({ channel, sender, frameUrl, args }) {
    const fn = state.ipcHandle[channel];
    if (!fn) return { error: `no handler for ${channel}` };
    return { result: await fn({ sender: { id: sender }, senderFrame: frameUrl ? { url: frameUrl } : null }, ...args) };
  },
  navigate({ event, url }) {
    const e = electronEvent({ url });
    state.windows[0].webContents.emit(event, e, url);
    return { prevented: e.defaultPrevented };
  },
  windowOpen({ url }) {
    return { result: state.windows[0].webContents.openHandler({ url }) };
  },
  permission({ permission }) {
    return new Promise((r) =>
      state.windows[0].webContents.permission(state.windows[0].webContents, permission, (granted) => r({ granted })),
    );
  },
  headers() {
    return new Promise((r) =>
      state.windows[0].webContents.headers({ url: 'https://x.invalid/', responseHeaders: {} }, (h) => r(h)),
    );
  },
  secondInstance({ argv }) {
    app.emit('second-instance', electronEvent(), argv, process.cwd(), {});
    return {};
  },
  quit() {
    app.quit();
    return {};
  },
};

function control() {
  process.on('message', async (m) => {
    let reply;
    try {
      reply = await ops[m.op](m);
    } catch (e) {
      reply = { error: String(e?.stack ? e.stack : e) };
    }
    process.send?.({ id: m.id, ...reply });
  });
}

module.exports = {
  app,
  BrowserWindow,
  Tray,
  Notification,
  Menu,
  protocol,
  ipcMain,
  dialog,
  contextBridge,
  ipcRenderer,
  // Not Electron's: the stand-in's own handles.
  standIn: { install, control, calls, state },
};
