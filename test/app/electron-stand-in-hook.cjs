'use strict';
// `node -r ./test/app/electron-stand-in-hook.cjs out/main/index.js ...`: the built main process with
// require('electron') answered by the recording stand-in, driven by the test over the IPC channel.
const { standIn } = require('./electron-stand-in.cjs');
standIn.install();
standIn.control();
