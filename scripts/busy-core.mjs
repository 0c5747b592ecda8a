#!/usr/bin/env node
// Runs a command while one core is kept busy, the way a shared CI machine or a busy laptop treats
// the suite: `node scripts/busy-core.mjs [--cores N] [--max-minutes M] -- <command...>`.
// The busy loop is a child that ends by itself at its deadline (default 100 min) even if this
// script is killed, and is stopped by its pid as soon as the command ends.
import { spawn } from 'node:child_process';

const args = process.argv.slice(2);
const sep = args.indexOf('--');
const opts = sep < 0 ? [] : args.slice(0, sep);
const command = sep < 0 ? args : args.slice(sep + 1);
const opt = (name, dflt) => {
  const i = opts.indexOf(name);
  return i >= 0 && opts[i + 1] !== undefined ? Number(opts[i + 1]) : dflt;
};
const cores = opt('--cores', 1);
const maxMinutes = opt('--max-minutes', 100);
if (command.length === 0 || !(cores >= 1) || !(maxMinutes > 0)) {
  console.error('usage: node scripts/busy-core.mjs [--cores N] [--max-minutes M] -- <command...>');
  process.exit(2);
}

const deadline = Date.now() + maxMinutes * 60_000;
// Spins until its deadline, checking the clock only every few million iterations.
const loop = `const d=${deadline};let x=0;for(;;){for(let i=0;i<5e6;i++)x=(x*31+i)|0;if(Date.now()>d)process.exit(0)}`;
const busy = Array.from({ length: cores }, () => spawn(process.execPath, ['-e', loop], { stdio: 'ignore' }));
console.error(
  `busy-core: ${cores} busy loop(s) (pid ${busy.map((b) => b.pid).join(', ')}) until the command ends, at most ${maxMinutes} min`,
);

const stopBusy = () => {
  for (const b of busy) if (b.exitCode === null) b.kill('SIGKILL');
};
const child = spawn(command[0], command.slice(1), { stdio: 'inherit' });
for (const sig of ['SIGINT', 'SIGTERM']) {
  process.on(sig, () => {
    child.kill(sig);
    stopBusy();
  });
}
child.on('exit', (code, signal) => {
  stopBusy();
  console.error(`busy-core: the command ended (${signal ?? `exit ${code}`}); busy loops stopped`);
  process.exit(code ?? 1);
});
