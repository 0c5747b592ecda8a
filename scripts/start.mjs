// The main job: bring up the bundled example rig on Rigdesk's own tmux server, show `rigdesk ps`,
// then open the window: the desktop app where an Electron binary can start, else the same window
// served to a browser by `rigdesk serve` (its URL is printed). Ctrl-C stops the window; the rig
// keeps running (take it down with `rigdesk down demo`).
import { execFileSync, spawn, spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { electronBinary, electronSqliteFile, isPackagedApp, readStatus } from './desktop.mjs';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const rigdeskBin = join(root, 'bin', 'rigdesk.cjs');
const rigdesk = (args) => spawnSync(process.execPath, [rigdeskBin, ...args], { stdio: 'inherit' });

execFileSync('npm', ['run', '--silent', 'build'], { cwd: root, stdio: ['ignore', 'ignore', 'inherit'] });
const spec = join(root, 'examples', 'demo-rig.yaml');
console.log(`$ rigdesk up ${spec}`);
const up = rigdesk(['up', spec]);
console.log('\n$ rigdesk ps');
rigdesk(['ps']);
if (up.status !== 0) process.exit(up.status ?? 1);

// The desktop app needs an Electron binary, a display, and better-sqlite3 built for Electron's ABI
// (scripts/desktop.mjs fetches both where it can); without one of them, say which and serve the
// same window to a browser.
const bin = electronBinary(process.env, root);
const why = !bin.path
  ? bin.why
  : process.platform === 'linux' && !process.env.DISPLAY && !process.env.WAYLAND_DISPLAY
    ? 'no display (DISPLAY and WAYLAND_DISPLAY are unset; under xvfb-run it would start)'
    : !isPackagedApp(bin.path) && !existsSync(electronSqliteFile(root))
      ? `better-sqlite3 has no build for Electron's ABI${readStatus(root).sqlite?.why ? ` (setup: ${readStatus(root).sqlite.why})` : ''}; run ./scripts/setup`
      : undefined;
if (process.env.RIGDESK_NO_WINDOW === '1') {
  console.log(`\n${why ? `The desktop app cannot start here: ${why}.` : `The desktop app would start: ${bin.path}.`}`);
  process.exit(0);
}
if (!why) {
  console.log('\nStarting the desktop app.');
  const app = spawn(bin.path, isPackagedApp(bin.path) ? [] : [root], { stdio: 'inherit' });
  app.on('exit', (code) => process.exit(code ?? 0));
} else {
  console.log(`\nThe desktop app cannot start here: ${why}.\nServing the same window to a browser instead.`);
  const serve = spawn(process.execPath, [rigdeskBin, 'serve'], { stdio: 'inherit' });
  const stop = () => serve.kill('SIGTERM');
  process.on('SIGINT', stop);
  process.on('SIGTERM', stop);
  serve.on('exit', (code) => process.exit(code ?? 0));
}
