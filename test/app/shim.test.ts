import { execFileSync } from 'node:child_process';
import {
  copyFileSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  rmSync,
  statSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { installShim, MARK, shimScript } from '../../src/main/engine/services/shim';
import { REPO, RigWorld } from '../support/rig';

let w: RigWorld;
let home: string;
beforeAll(() => {
  w = new RigWorld();
  home = join(w.root, 'userhome');
  mkdirSync(home);
});
afterAll(() => w?.cleanup());

const cli = (args: string[]) => w.cli(args, { HOME: home, PATH: `${join(home, '.local', 'bin')}:${process.env.PATH}` });

describe('rigdesk install-shim', () => {
  it('puts a working rigdesk in ~/.local/bin, says where it is and how to remove it; --remove takes it off', async () => {
    const r = await cli(['install-shim']);
    expect(r.code, r.stderr).toBe(0);
    const path = join(home, '.local', 'bin', 'rigdesk');
    expect(r.stdout).toContain(`rigdesk shim installed: ${path}`);
    expect(r.stdout).toMatch(/remove it with: rigdesk install-shim --remove/);
    expect(statSync(path).mode & 0o111).toBeTruthy();
    expect(readFileSync(path, 'utf8')).toContain(MARK);
    // The shim is a real command: it runs this checkout's CLI.
    expect(execFileSync(path, ['--version'], { encoding: 'utf8', env: { ...w.env, HOME: home } })).toBe(
      'rigdesk 0.1.0\n',
    );
    expect((await cli(['install-shim', '--json'])).json).toMatchObject({
      ok: true,
      shim: { action: 'unchanged', path, onPath: true },
    });
    const gone = await cli(['install-shim', '--remove']);
    expect(gone.stdout).toContain(`rigdesk shim removed: ${path}`);
    expect(existsSync(path)).toBe(false);
    expect((await cli(['install-shim', '--remove', '--json'])).json).toMatchObject({
      ok: true,
      shim: { action: 'absent' },
    });
  });

  it('a folder not on PATH gets the line that puts it there; --plan writes nothing', async () => {
    const dir = join(w.root, 'elsewhere', 'bin');
    const plan = await cli(['install-shim', '--dir', dir, '--plan', '--json']);
    expect(plan.json).toMatchObject({
      ok: true,
      shim: { action: 'would_install', onPath: false, pathHint: expect.stringContaining(`export PATH="${dir}:$PATH"`) },
    });
    expect(existsSync(dir)).toBe(false);
    const r = await cli(['install-shim', '--dir', dir]);
    expect(r.stdout).toContain(`is not on PATH; add it`);
    expect(existsSync(join(dir, 'rigdesk'))).toBe(true);
  });

  it('a rigdesk that is not a Rigdesk shim is never replaced or removed', async () => {
    const dir = join(w.root, 'theirs');
    mkdirSync(dir);
    writeFileSync(join(dir, 'rigdesk'), '#!/bin/sh\necho someone else\n', { mode: 0o755 });
    for (const args of [
      ['install-shim', '--dir', dir],
      ['install-shim', '--dir', dir, '--remove'],
    ]) {
      const r = await cli([...args, '--json']);
      expect(r.json, args.join(' ')).toMatchObject({
        ok: false,
        code: 'SHIM_CONFLICT',
        message: expect.stringMatching(/not a Rigdesk shim/),
      });
    }
    expect(readFileSync(join(dir, 'rigdesk'), 'utf8')).toBe('#!/bin/sh\necho someone else\n');
  });
});

describe('the packaged app shim', () => {
  it('finds the bundled CLI beside the app executable at each run (resources/app.asar or app), as in an AppImage mount', () => {
    // The packaged layout with node standing in for the Electron binary (which cannot run here):
    // <app>/rigdesk and <app>/resources/app/out/main/cli.js (plain node cannot read the app.asar
    // the real app has; the shim tries that path first).
    const app = mkdtempSync(join(tmpdir(), 'rd-app-'));
    try {
      const exe = join(app, 'rigdesk');
      copyFileSync(process.execPath, exe);
      mkdirSync(join(app, 'resources', 'app', 'out'), { recursive: true });
      symlinkSync(join(REPO, 'out', 'main'), join(app, 'resources', 'app', 'out', 'main'), 'dir');
      const shim = join(app, 'shim');
      writeFileSync(shim, shimScript({ kind: 'app', exec: exe }), { mode: 0o755 });
      expect(readFileSync(shim, 'utf8')).toMatch(/^ELECTRON_RUN_AS_NODE=1 exec '/m);
      expect(execFileSync(shim, ['--version'], { encoding: 'utf8', env: w.env })).toBe('rigdesk 0.1.0\n');
      expect(execFileSync(shim, ['topology', '--json'], { encoding: 'utf8', env: { ...w.env, HOME: home } })).toMatch(
        /^\{"ok":true/,
      );
      // installShim with that runtime writes the same script.
      const dir = join(app, 'bin');
      expect(installShim({ env: { PATH: '/usr/bin' }, dir, runtime: { kind: 'app', exec: exe } })).toMatchObject({
        ok: true,
        shim: { action: 'installed', runtime: { kind: 'app', exec: exe } },
      });
      expect(readFileSync(join(dir, 'rigdesk'), 'utf8')).toBe(readFileSync(shim, 'utf8'));
    } finally {
      rmSync(app, { recursive: true, force: true });
    }
  });
});
