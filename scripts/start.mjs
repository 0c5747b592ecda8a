// The main job: bring up the bundled example rig on Rigdesk's own tmux server, show `rigdesk ps`,
// then open the window: the desktop app where an Electron binary can start, else the same window
// served to a browser by `rigdesk serve` (its URL is printed). Ctrl-C stops the window; the rig
// keeps running (take it down with `rigdesk down demo`).
import { execFileSync, spawn, spawnSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const bin = join(root, 'bin', 'rigdesk.cjs');
const rigdesk = (args) => spawnSync(process.execPath, [bin, ...args], { stdio: 'inherit' });

execFileSync('npm', ['run', '--silent', 'build'], { cwd: root, stdio: ['ignore', 'ignore', 'inherit'] });
const spec = join(root, 'examples', 'demo-rig.yaml');
console.log(`$ rigdesk up ${spec}`);
const up = rigdesk(['up', spec]);
console.log('\n$ rigdesk ps');
rigdesk(['ps']);
if (up.status !== 0) process.exit(up.status ?? 1);

// Reading electron/path.txt never triggers the binary download that require('electron') would.
const pathTxt = join(root, 'node_modules', 'electron', 'path.txt');
const electronBin = existsSync(pathTxt)
  ? join(root, 'node_modules', 'electron', 'dist', readFileSync(pathTxt, 'utf8').trim())
  : undefined;
if (electronBin && existsSync(electronBin) && process.env.RIGDESK_NO_WINDOW !== '1') {
  console.log('\nStarting the desktop app.');
  const app = spawn(electronBin, [root], { stdio: 'inherit' });
  app.on('exit', (code) => process.exit(code ?? 0));
} else {
  console.log('\nNo Electron binary can start here; serving the same window to a browser instead.');
  if (process.env.RIGDESK_NO_WINDOW === '1') process.exit(0);
  const serve = spawn(process.execPath, [bin, 'serve'], { stdio: 'inherit' });
  const stop = () => serve.kill('SIGTERM');
  process.on('SIGINT', stop);
  process.on('SIGTERM', stop);
  serve.on('exit', (code) => process.exit(code ?? 0));
}
