// What the desktop app needs besides the npm tree, fetched by setup where it can be:
//   1. the Electron binary, by the electron package's own fetch (its install-electron script);
//   2. better-sqlite3 built for Electron's ABI, beside the Node build npm made (a prebuild from
//      better-sqlite3's releases, else compiled against Electron's headers), in a scratch copy so
//      the Node build that the CLI and the tests load is never touched.
// Where a fetch fails, setup prints one line (what, why, how to retry) and goes on; the outcome is
// kept in node_modules/.rigdesk-desktop.json so `npm start` can say why it serves a browser.
// `node scripts/desktop.mjs` is setup's step; the functions are shared with start.mjs, dist.mjs
// and the e2e.
import { spawnSync } from 'node:child_process';
import { copyFileSync, cpSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

export const ROOT = join(dirname(fileURLToPath(import.meta.url)), '..');
const pkgDir = (root, name) => join(root, 'node_modules', name);
const statusFile = (root) => join(root, 'node_modules', '.rigdesk-desktop.json');

export function electronVersion(root = ROOT) {
  return JSON.parse(readFileSync(join(pkgDir(root, 'electron'), 'package.json'), 'utf8')).version;
}

/** Electron's NODE_MODULE_VERSION, as the electron package records it (process.versions.modules there). */
export function electronAbi(root = ROOT) {
  return readFileSync(join(pkgDir(root, 'electron'), 'abi_version'), 'utf8').trim();
}

/** Where the Electron build of better-sqlite3 lives; src/main/engine/sqlite-binding.ts reads the same. */
export function electronSqliteFile(root = ROOT, abi = electronAbi(root)) {
  const name = `electron-v${abi}-${process.platform}-${process.arch}`;
  return join(pkgDir(root, 'better-sqlite3'), 'lib', 'binding', name, 'better_sqlite3.node');
}

/** The Electron executable the package fetched. Reads path.txt: require('electron') would start a download. */
export function packagedElectron(root = ROOT) {
  const dir = pkgDir(root, 'electron');
  const txt = join(dir, 'path.txt');
  if (!existsSync(txt)) return undefined;
  const bin = join(dir, 'dist', readFileSync(txt, 'utf8').trim());
  return existsSync(bin) ? bin : undefined;
}

/** A packaged app's executable (resources/app.asar or resources/app beside it) runs its own bundle. */
export function isPackagedApp(bin) {
  const res = join(dirname(bin), 'resources');
  return existsSync(join(res, 'app.asar')) || existsSync(join(res, 'app', 'package.json'));
}

export function readStatus(root = ROOT) {
  try {
    return JSON.parse(readFileSync(statusFile(root), 'utf8'));
  } catch {
    return {};
  }
}

/**
 * The Electron binary to start: RIGDESK_ELECTRON (a binary, or a packaged app's executable), else
 * the package's own. `why` says why there is none, with setup's reason when it recorded one.
 */
export function electronBinary(env = process.env, root = ROOT) {
  if (env.RIGDESK_ELECTRON)
    return existsSync(env.RIGDESK_ELECTRON)
      ? { path: env.RIGDESK_ELECTRON }
      : { why: `RIGDESK_ELECTRON=${env.RIGDESK_ELECTRON} does not exist` };
  const bin = packagedElectron(root);
  if (bin) return { path: bin };
  const s = readStatus(root).electron;
  return {
    why: `no Electron binary in node_modules/electron${s && !s.ok ? ` (setup could not fetch it: ${s.why})` : ' (run ./scripts/setup)'}; set RIGDESK_ELECTRON to one`,
  };
}

/** The one line worth printing from a failed fetch: the network error, else the last error line. */
export function reasonIn(text) {
  const lines = text
    .split('\n')
    .map((l) => l.trim())
    .filter(Boolean);
  const net = lines.filter((l) =>
    /ENOTFOUND|EAI_AGAIN|ECONNREFUSED|ECONNRESET|ETIMEDOUT|certificate|HTTP\s?[45]\d\d|status code [45]\d\d/i.test(l),
  );
  const pick = net.at(-1) ?? lines.filter((l) => /error|fail/i.test(l)).at(-1) ?? lines.at(-1) ?? 'no output';
  return pick.replace(/^(prebuild-install (warn|info) \w+|gyp ERR! \w+)\s*/, '').slice(0, 200);
}

function run(cmd, args, opts = {}) {
  const r = spawnSync(cmd, args, { encoding: 'utf8', maxBuffer: 64 * 1024 * 1024, ...opts });
  return { ok: r.status === 0, out: `${r.stdout ?? ''}\n${r.stderr ?? ''}${r.error ? `\n${r.error.message}` : ''}` };
}

/** @electron/get prints only "fetch failed"; the cause (DNS, refused, ...) comes from one HEAD. */
async function fetchCause(url) {
  try {
    const r = await fetch(url, { method: 'HEAD', signal: AbortSignal.timeout(10_000) });
    return `HTTP ${r.status} from ${new URL(url).host}`;
  } catch (e) {
    return `${new URL(url).host}: ${e.cause?.message ?? e.message}`;
  }
}

async function fetchElectron(root) {
  if (packagedElectron(root)) return { ok: true };
  const r = run(process.execPath, [join(pkgDir(root, 'electron'), 'install.js')], { cwd: root, timeout: 15 * 60_000 });
  if (r.ok && packagedElectron(root)) return { ok: true };
  const v = electronVersion(root);
  const mirror = process.env.ELECTRON_MIRROR ?? 'https://github.com/electron/electron/releases/download/';
  const why = /fetch failed/.test(r.out) ? await fetchCause(`${mirror}v${v}/SHASUMS256.txt`) : reasonIn(r.out);
  return { ok: false, why };
}

/** better-sqlite3 for Electron's ABI at `target` (this tree's by default), made in a scratch copy. */
export async function buildElectronSqlite(root = ROOT, target = electronSqliteFile(root)) {
  if (existsSync(target)) return { ok: true };
  const src = pkgDir(root, 'better-sqlite3');
  const scratch = mkdtempSync(join(tmpdir(), 'rigdesk-sqlite-electron-'));
  try {
    const work = join(scratch, 'better-sqlite3');
    cpSync(src, work, {
      recursive: true,
      filter: (p) => !p.startsWith(join(src, 'build')) && !p.startsWith(join(src, 'lib', 'binding')),
    });
    const flags = [`--target=${electronVersion(root)}`, `--arch=${process.arch}`];
    // The project's .npmrc points node-gyp at Node's headers; Electron's must be used here.
    const env = Object.fromEntries(Object.entries(process.env).filter(([k]) => !/^npm_config_nodedir$/i.test(k)));
    const pre = run(
      process.execPath,
      [
        join(pkgDir(root, 'prebuild-install'), 'bin.js'),
        '--runtime=electron',
        ...flags,
        `--platform=${process.platform}`,
        '--verbose',
      ],
      { cwd: work, env, timeout: 10 * 60_000 },
    );
    const built = join(work, 'build', 'Release', 'better_sqlite3.node');
    let why = existsSync(built) ? undefined : `prebuild: ${reasonIn(pre.out)}`;
    const v = electronVersion(root);
    if (why) {
      const gyp = join(pkgDir(root, 'node-gyp'), 'bin', 'node-gyp.js');
      // RIGDESK_ELECTRON_HEADERS_URL: a mirror of Electron's headers (node-gyp's --dist-url).
      const headersUrl = process.env.RIGDESK_ELECTRON_HEADERS_URL ?? 'https://electronjs.org/headers';
      const dist = ['--runtime=electron', `--dist-url=${headersUrl}`, ...flags];
      const headers = run(process.execPath, [gyp, 'install', ...dist], { cwd: work, env, timeout: 10 * 60_000 });
      // node-gyp says only "network connectivity"; one HEAD says what failed.
      const url = `${headersUrl}/v${v}/node-v${v}-headers.tar.gz`;
      if (!headers.ok)
        why += `; headers: ${/network connectivity/.test(headers.out) ? await fetchCause(url) : reasonIn(headers.out)}`;
      else {
        process.stderr.write('setup: compiling better-sqlite3 for Electron (about two minutes)\n');
        const gypBuild = run(process.execPath, [gyp, 'rebuild', '--release', ...dist], {
          cwd: work,
          env,
          timeout: 30 * 60_000,
        });
        if (!gypBuild.ok || !existsSync(built)) why += `; compile: ${reasonIn(gypBuild.out)}`;
        else why = undefined;
      }
    }
    if (why) return { ok: false, why };
    mkdirSync(dirname(target), { recursive: true });
    copyFileSync(built, target);
    return { ok: true };
  } finally {
    rmSync(scratch, { recursive: true, force: true });
  }
}

/** Setup's step: fetch what is missing, record the outcome, print one line. Never fails setup for a fetch. */
export async function setupDesktop(root = ROOT) {
  const electron = await fetchElectron(root);
  const sqlite = await buildElectronSqlite(root);
  writeFileSync(
    statusFile(root),
    `${JSON.stringify({ electron, sqlite, version: electronVersion(root), abi: electronAbi(root) }, null, 2)}\n`,
  );
  if (electron.ok && sqlite.ok) {
    process.stderr.write(
      `setup: desktop app ready (Electron ${electronVersion(root)}, better-sqlite3 for its ABI ${electronAbi(root)})\n`,
    );
    return;
  }
  const missing = [
    electron.ok ? undefined : `the Electron ${electronVersion(root)} binary (${electron.why})`,
    sqlite.ok ? undefined : `better-sqlite3 for Electron's ABI ${electronAbi(root)} (${sqlite.why})`,
  ].filter(Boolean);
  process.stderr.write(
    `setup: could not fetch ${missing.join(' nor ')}, so \`npm start\` serves the window to a browser; retry with ./scripts/setup where github.com and electronjs.org answer (ELECTRON_MIRROR names a mirror)\n`,
  );
}

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) await setupDesktop();
