import { execFile } from 'node:child_process';
import { createHash } from 'node:crypto';
import { cpSync, existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, symlinkSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { crc32 } from 'node:zlib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { electronBindingFile, sqliteNativeBinding } from '../../src/main/engine/sqlite-binding';
import { electronAbi, electronBinary, electronSqliteFile, readStatus } from '../../scripts/desktop.mjs';
import { closedPort } from '../agents/fake-model-server';
import { REPO } from '../support/rig';

/** A zip of stored (uncompressed) files with Unix modes, enough for the electron package's extractor. */
function zip(files: { name: string; body: string; mode: number }[]): Buffer {
  const locals: Buffer[] = [];
  const centrals: Buffer[] = [];
  let offset = 0;
  for (const f of files) {
    const body = Buffer.from(f.body);
    const name = Buffer.from(f.name);
    const local = Buffer.alloc(30);
    local.writeUInt32LE(0x04034b50, 0);
    local.writeUInt16LE(20, 4);
    local.writeUInt32LE(crc32(body), 14);
    local.writeUInt32LE(body.length, 18);
    local.writeUInt32LE(body.length, 22);
    local.writeUInt16LE(name.length, 26);
    const central = Buffer.alloc(46);
    central.writeUInt32LE(0x02014b50, 0);
    central.writeUInt16LE((3 << 8) | 20, 4); // made on Unix, so the external attributes carry the mode
    central.writeUInt16LE(20, 6);
    central.writeUInt32LE(crc32(body), 16);
    central.writeUInt32LE(body.length, 20);
    central.writeUInt32LE(body.length, 24);
    central.writeUInt16LE(name.length, 28);
    central.writeUInt32LE(((0o100000 | f.mode) << 16) >>> 0, 38);
    central.writeUInt32LE(offset, 42);
    locals.push(local, name, body);
    centrals.push(central, name);
    offset += local.length + name.length + body.length;
  }
  const dir = Buffer.concat(centrals);
  const end = Buffer.alloc(22);
  end.writeUInt32LE(0x06054b50, 0);
  end.writeUInt16LE(files.length, 8);
  end.writeUInt16LE(files.length, 10);
  end.writeUInt32LE(dir.length, 12);
  end.writeUInt32LE(offset, 16);
  return Buffer.concat([...locals, dir, end]);
}

/**
 * Setup's desktop step (scripts/desktop.mjs) on a scratch copy of the electron and better-sqlite3
 * packages, everything else linked from this tree. The download hosts cannot be reached here, so
 * the electron package's own fetch gets a stand-in Electron zip from a mirror on 127.0.0.1
 * (ELECTRON_MIRROR, Electron's own setting), and better-sqlite3's prebuild and header hosts are a
 * closed port on 127.0.0.1. Nothing leaves 127.0.0.1.
 */
describe("setup's desktop step (a stand-in Electron zip from a 127.0.0.1 mirror: no download host here)", () => {
  const version = JSON.parse(readFileSync(join(REPO, 'node_modules', 'electron', 'package.json'), 'utf8')).version;
  let root: string;
  let mirror: Server;
  let mirrorUrl: string;
  let closed: string;
  let downloads = 0;
  beforeAll(async () => {
    root = mkdtempSync(join(tmpdir(), 'rd-desktop-'));
    const nm = join(root, 'node_modules');
    mkdirSync(nm);
    for (const name of readdirSync(join(REPO, 'node_modules'))) {
      const from = join(REPO, 'node_modules', name);
      if (name === 'electron')
        cpSync(from, join(nm, name), {
          recursive: true,
          filter: (p) => !p.startsWith(join(from, 'dist')) && p !== join(from, 'path.txt'),
        });
      else if (name === 'better-sqlite3')
        cpSync(from, join(nm, name), { recursive: true, filter: (p) => !p.startsWith(join(from, 'build')) });
      else if (!name.startsWith('.')) symlinkSync(from, join(nm, name));
    }
    const file = `electron-v${version}-${process.platform}-${process.arch}.zip`;
    const body = zip([
      { name: 'electron', body: '#!/bin/sh\necho stand-in electron "$@"\n', mode: 0o755 },
      { name: 'version', body: `v${version}`, mode: 0o644 },
    ]);
    const sums = `${createHash('sha256').update(body).digest('hex')} *${file}\n`;
    mirror = createServer((req, res) => {
      if (req.url === `/v${version}/${file}`) {
        downloads++;
        res.end(body);
      } else if (req.url === `/v${version}/SHASUMS256.txt`) res.end(sums);
      else res.writeHead(404).end();
    });
    await new Promise<void>((r) => mirror.listen(0, '127.0.0.1', r));
    mirrorUrl = `http://127.0.0.1:${(mirror.address() as AddressInfo).port}/`;
    closed = `http://127.0.0.1:${await closedPort()}`;
  });
  afterAll(async () => {
    await new Promise((r) => mirror?.close(r));
    rmSync(root, { recursive: true, force: true });
  });

  const setup = (electronMirror: string) =>
    new Promise<{ code: number; stderr: string }>((res) => {
      const env: NodeJS.ProcessEnv = {
        PATH: process.env.PATH,
        HOME: root,
        NO_PROXY: '127.0.0.1,localhost',
        ELECTRON_MIRROR: electronMirror,
        electron_use_remote_checksums: '1',
        electron_config_cache: join(root, 'electron-cache'),
        npm_config_cache: join(root, 'npm-cache'),
        npm_config_better_sqlite3_binary_host: closed,
        RIGDESK_ELECTRON_HEADERS_URL: closed,
      };
      const code = `import(${JSON.stringify(join(REPO, 'scripts', 'desktop.mjs'))}).then((m) => m.setupDesktop(${JSON.stringify(root)}))`;
      execFile(process.execPath, ['-e', code], { env, timeout: 120_000 }, (e, _out, stderr) =>
        res({ code: e ? Number(e.code ?? 1) : 0, stderr }),
      );
    });

  it('where nothing answers: one line saying what could not be fetched and why, exit 0, and npm start can say why', async () => {
    const r = await setup(`${closed}/`);
    expect(r.code).toBe(0);
    const lines = r.stderr.trim().split('\n');
    expect(lines).toHaveLength(1);
    expect(lines[0]).toMatch(
      new RegExp(
        `^setup: could not fetch the Electron ${version} binary \\(127\\.0\\.0\\.1:\\d+: connect ECONNREFUSED`,
      ),
    );
    expect(lines[0]).toMatch(
      /nor better-sqlite3 for Electron's ABI \d+ \(prebuild: .*ECONNREFUSED.*; headers: .*ECONNREFUSED/,
    );
    expect(lines[0]).toMatch(/serves the window to a browser; retry with \.\/scripts\/setup/);
    expect(readStatus(root)).toMatchObject({ electron: { ok: false }, sqlite: { ok: false } });
    expect(electronBinary({}, root).why).toMatch(/setup could not fetch it: 127\.0\.0\.1:\d+: connect ECONNREFUSED/);
  }, 150_000);

  it("the electron package's own fetch runs on this Node and installs the binary; a second setup fetches nothing again", async () => {
    const r = await setup(mirrorUrl);
    expect(r.code).toBe(0);
    expect(downloads).toBe(1);
    const bin = electronBinary({}, root).path;
    expect(bin).toBe(join(root, 'node_modules', 'electron', 'dist', 'electron'));
    expect(existsSync(bin!)).toBe(true);
    const lines = r.stderr.trim().split('\n');
    expect(lines).toHaveLength(1);
    expect(lines[0]).toMatch(/^setup: could not fetch better-sqlite3 for Electron's ABI/);
    expect(readStatus(root)).toMatchObject({ electron: { ok: true }, sqlite: { ok: false } });
    expect((await setup(mirrorUrl)).code).toBe(0);
    expect(downloads).toBe(1);
  }, 150_000);

  it("the fetch needs require(esm), which Node has from 20.19 on: without it the electron package's fetch cannot load", async () => {
    // Not installed (path.txt gone), so install.js goes on to load its ESM downloader.
    rmSync(join(root, 'node_modules', 'electron', 'path.txt'), { force: true });
    const r = await new Promise<{ code: number; stderr: string }>((res) =>
      execFile(
        process.execPath,
        ['--no-experimental-require-module', join(root, 'node_modules', 'electron', 'install.js')],
        { env: { PATH: process.env.PATH, HOME: root, ELECTRON_MIRROR: `${closed}/` }, timeout: 60_000 },
        (e, _out, stderr) => res({ code: e ? Number(e.code ?? 1) : 0, stderr }),
      ),
    );
    expect(r.code).not.toBe(0);
    expect(r.stderr).toMatch(/ERR_REQUIRE_ESM/);
  });

  it('the store looks for the Electron build where setup puts it, by the running ABI; under Node it uses its own lookup', () => {
    const abi = electronAbi(REPO);
    const pkg = join(REPO, 'node_modules', 'better-sqlite3');
    expect(electronBindingFile(pkg, abi)).toBe(electronSqliteFile(REPO, abi));
    expect(sqliteNativeBinding({ ...process.versions, electron: version, modules: abi })).toBe(
      electronSqliteFile(REPO, abi),
    );
    expect(sqliteNativeBinding(process.versions)).toBeUndefined();
  });
});
