// `npm run test:e2e`: the packaged-app e2e (e2e/*.e2e.ts). With an Electron binary and no display
// (a CI machine, a server), it runs under xvfb-run; under CI a binary without any way to show a
// window is a failure, never a skip. Without a binary the spec prints why and skips.
import { spawnSync } from 'node:child_process';
import { electronBinary, ROOT } from './desktop.mjs';

const vitest = ['vitest', 'run', '--config', 'e2e/vitest.e2e.config.mts', ...process.argv.slice(2)];
const bin = electronBinary();
const headless = process.platform === 'linux' && !process.env.DISPLAY && !process.env.WAYLAND_DISPLAY;
const hasXvfb = spawnSync('sh', ['-c', 'command -v xvfb-run'], { stdio: 'ignore' }).status === 0;
let cmd = ['npx', ...vitest];
if (bin.path && headless) {
  if (hasXvfb) cmd = ['xvfb-run', '--auto-servernum', '--server-args=-screen 0 1920x1080x24', 'npx', ...vitest];
  else if (process.env.CI) {
    process.stderr.write(
      `test:e2e: an Electron binary is here (${bin.path}) but no display and no xvfb-run: install xvfb (apt-get install xvfb)\n`,
    );
    process.exit(1);
  }
}
const r = spawnSync(cmd[0], cmd.slice(1), { cwd: ROOT, stdio: 'inherit' });
process.exit(r.status ?? 1);
