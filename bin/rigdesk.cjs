#!/usr/bin/env node
'use strict';
// The `rigdesk` command. It runs the built CLI (electron-vite builds it with the app); the same
// file runs under Electron's own runtime with ELECTRON_RUN_AS_NODE in the packaged app.
const path = require('node:path');
const fs = require('node:fs');
const built = path.join(__dirname, '..', 'out', 'main', 'cli.js');
if (!fs.existsSync(built)) {
  process.stderr.write('rigdesk: INTERNAL: the CLI is not built yet\n  next: run `npm run build` in ' + path.dirname(__dirname) + '\n');
  process.exit(1);
}
const { runCli } = require(built);
runCli(process.argv.slice(2)).then(
  (code) => process.exit(code),
  (e) => {
    process.stderr.write('rigdesk: INTERNAL: ' + (e && e.stack ? e.stack : String(e)) + '\n');
    process.exit(1);
  },
);
