'use strict';
// `node -r ./test/app/electron-stand-in-hook.cjs out/main/index.js ...`: the built main process with
// require('electron') answered by the recording stand-in, driven by the test over the IPC channel.
const { standIn } = require('./electron-stand-in.cjs');
standIn.install();
standIn.control();
// RIGDESK_STAND_IN_ELECTRON=<version>:<abi> makes the process read as Electron's (process.versions),
// for the paths that choose by runtime (the store's better-sqlite3 build).
if (process.env.RIGDESK_STAND_IN_ELECTRON) {
  const [electron, modules] = process.env.RIGDESK_STAND_IN_ELECTRON.split(':');
  Object.defineProperty(process.versions, 'electron', { value: electron, enumerable: true });
  Object.defineProperty(process.versions, 'modules', { value: modules, enumerable: true });
}
