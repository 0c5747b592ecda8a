// `npm run dist`: the packaged desktop app (AppImage and deb on Linux, dmg and zip on macOS).
// electron-builder's own native rebuild (npmRebuild) would rewrite THIS tree's node_modules for
// Electron and break the CLI and the tests, so packaging works on its own copy: a stage folder with
// the built bundles, package.json and the production dependencies, where better-sqlite3 carries its
// Electron build (setup's, or built here into the stage) and node-pty its N-API build, which serves
// Electron as it is. electron-builder then packs the stage with npmRebuild off.
// Needs from the network: Electron's zip (unless node_modules/electron has the binary, or
// RIGDESK_ELECTRON_DIST names an unpacked Electron), electron-builder's AppImage and deb tools, and,
// when setup could not make it, better-sqlite3 for Electron (github.com, electronjs.org).
// `--dir` makes only the unpacked app (dist/linux-unpacked), which needs no packaging tools.
import { spawnSync } from 'node:child_process';
import { cpSync, existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { dirname, join, relative, sep } from 'node:path';
import { fileURLToPath } from 'node:url';
import { buildElectronSqlite, electronAbi, electronSqliteFile, packagedElectron, ROOT } from './desktop.mjs';

const STAGE = join(ROOT, '.tmp', 'dist-app');

function sh(cmd, args, opts = {}) {
  const r = spawnSync(cmd, args, { cwd: ROOT, stdio: 'inherit', ...opts });
  if (r.status !== 0) {
    process.stderr.write(`dist: ${cmd} ${args.join(' ')} failed (exit ${r.status ?? r.signal})\n`);
    process.exit(1);
  }
  return r;
}

/** The production dependency folders of this tree, as npm resolved them (nested ones included). */
function productionPackages() {
  const r = spawnSync('npm', ['ls', '--omit=dev', '--all', '--parseable'], { cwd: ROOT, encoding: 'utf8' });
  return r.stdout
    .split('\n')
    .filter((p) => p && p !== ROOT)
    .map((p) => relative(ROOT, p));
}

/** A stage folder holding what the package carries; this tree is only read. */
export async function stage(root = ROOT, into = STAGE) {
  rmSync(into, { recursive: true, force: true });
  mkdirSync(into, { recursive: true });
  const pkg = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8'));
  const { name, version, description, license, main, dependencies } = pkg;
  writeFileSync(
    join(into, 'package.json'),
    `${JSON.stringify({ name, version, description, license, main, author: 'Rigdesk', dependencies }, null, 2)}\n`,
  );
  cpSync(join(root, 'out'), join(into, 'out'), { recursive: true, filter: (p) => !p.endsWith('.map') });
  // Node's better-sqlite3 build and the objects it was linked from stay behind: Electron loads its own.
  const sqliteBuild = join(root, 'node_modules', 'better-sqlite3', 'build');
  for (const dir of productionPackages()) {
    cpSync(join(root, dir), join(into, dir), {
      recursive: true,
      filter: (p) => !p.startsWith(sqliteBuild + sep) && !p.includes(`${sep}node_modules${sep}.bin`),
    });
  }
  const target = electronSqliteFile(into, electronAbi(root));
  if (!existsSync(target)) {
    const built = await buildElectronSqlite(root, target);
    if (!built.ok) {
      process.stderr.write(
        `dist: no better-sqlite3 build for Electron's ABI ${electronAbi(root)} (${built.why}); run ./scripts/setup where github.com and electronjs.org answer, then npm run dist again\n`,
      );
      process.exit(1);
    }
  }
  return into;
}

async function main() {
  sh('npx', ['electron-vite', 'build']);
  const dir = await stage();
  const electronDist =
    process.env.RIGDESK_ELECTRON_DIST ?? (packagedElectron(ROOT) ? dirname(packagedElectron(ROOT)) : undefined);
  const args = ['--config', 'electron-builder.yml', `-c.directories.app=${relative(ROOT, dir)}`];
  if (electronDist) args.push(`-c.electronDist=${electronDist}`);
  if (process.argv.includes('--dir')) args.push('--dir');
  sh('npx', ['electron-builder', ...args]);
}

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) await main();
