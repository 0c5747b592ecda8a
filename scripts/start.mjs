// The main job until the desktop window lands: bring up the bundled example rig on Rigdesk's own
// tmux server and show `rigdesk ps`. Run it again and it reports the seats as already running.
import { execFileSync, spawnSync } from 'node:child_process';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const rigdesk = (args, opts = {}) =>
  spawnSync(process.execPath, [join(root, 'bin', 'rigdesk.cjs'), ...args], { stdio: 'inherit', ...opts });

execFileSync('npm', ['run', '--silent', 'build'], { cwd: root, stdio: ['ignore', 'ignore', 'inherit'] });
const spec = join(root, 'examples', 'demo-rig.yaml');
console.log(`$ rigdesk up ${spec}`);
const up = rigdesk(['up', spec]);
console.log('\n$ rigdesk ps');
rigdesk(['ps']);
console.log(`
Attach to a seat:   ./bin/rigdesk.cjs attach lead@demo      (detach with Ctrl-b d)
Send to a seat:     ./bin/rigdesk.cjs send worker1@demo 'echo hello'
Take it down:       ./bin/rigdesk.cjs down demo`);
process.exit(up.status ?? 1);
