import { type Fs, liveFs } from '../deps';
import { homedir } from 'node:os';
import { delimiter, dirname, join, resolve } from 'node:path';
import type { ShimAnswer } from '../../../shared/contract/app';
import { fail, type Result } from '../../../shared/errors';
import { OWN_FILE_MAX_BYTES, readRegularText } from '../read-file';

/**
 * The `rigdesk` command on PATH. A small sh script that runs the CLI on the app's own
 * runtime with ELECTRON_RUN_AS_NODE, so a person needs no separate Node. Plain Node: the engine
 * runs it for `rigdesk install-shim` (on the app's engine when the app is running, so the shim
 * points at the app) and the Electron shell's menu item calls the same request.
 *
 * Only a file carrying MARK is ever replaced or removed: anything else named `rigdesk` is left.
 */
export const MARK = '# rigdesk-shim 1';

export interface ShimRuntime {
  /** The program the shim runs: the app's executable (or the AppImage), or node in a checkout. */
  exec: string;
  /** `app`: the packaged app finds its bundled CLI next to itself; `node`: a checkout's bin/rigdesk.cjs. */
  kind: 'app' | 'node';
  cli?: string;
}

/** The answer's shape is the contract's (`shimAnswer`). */
export type { ShimAnswer };

const q = (s: string) => `'${s.replace(/'/g, `'\\''`)}'`;

/**
 * The packaged app's CLI is out/main/cli.js inside resources/app.asar (Electron's node mode reads
 * asar archives, and native modules resolve to app.asar.unpacked), or resources/app/ when built
 * without asar; Contents/Resources on macOS. The shim finds it from the executable at each run,
 * so it keeps working inside an AppImage's changing mount point and across in-place updates.
 */
const APP_LOADER = [
  "const p=require('path'),f=require('fs'),d=p.dirname(process.execPath);",
  "const r=process.platform==='darwin'?p.join(d,'..','Resources'):p.join(d,'resources');",
  "const a=p.join(r,'app.asar','out','main','cli.js');",
  "require(f.existsSync(a)?a:p.join(r,'app','out','main','cli.js')).runCli(process.argv.slice(1))",
  ".then((c)=>process.exit(c),(e)=>{process.stderr.write('rigdesk: INTERNAL: '+(e&&e.stack||e)+'\\n');process.exit(1);});",
].join('');

export function shimScript(rt: ShimRuntime): string {
  const run =
    rt.kind === 'app'
      ? `ELECTRON_RUN_AS_NODE=1 exec ${q(rt.exec)} -e ${q(APP_LOADER)} -- "$@"`
      : `exec ${q(rt.exec)} ${q(rt.cli!)} "$@"`;
  return `#!/bin/sh\n${MARK}\n# The rigdesk command, put here by \`rigdesk install-shim\`. Remove it with \`rigdesk install-shim --remove\` or rm.\n${run}\n`;
}

/** What this process would point a shim at. */
export function currentRuntime(
  env: NodeJS.ProcessEnv = process.env,
  here = __dirname,
  fs: Pick<Fs, 'existsSync'> = liveFs,
): Result<{ runtime: ShimRuntime }> {
  if (process.versions.electron) return { ok: true, runtime: { kind: 'app', exec: env.APPIMAGE || process.execPath } };
  // A checkout: bin/rigdesk.cjs above this file (src/main/shell or out/main).
  for (let d = resolve(here); ; d = dirname(d)) {
    const bin = join(d, 'bin', 'rigdesk.cjs');
    if (fs.existsSync(bin) && fs.existsSync(join(d, 'package.json')))
      return { ok: true, runtime: { kind: 'node', exec: process.execPath, cli: bin } };
    if (dirname(d) === d) return fail('INTERNAL', 'cannot find the rigdesk CLI (bin/rigdesk.cjs) above this install');
  }
}

/** `$RIGDESK_SHIM_DIR`, else ~/.local/bin: per user, no root, on PATH in most Linux desktops. */
export function shimDir(env: NodeJS.ProcessEnv = process.env, dir?: string): string {
  return resolve(dir ?? env.RIGDESK_SHIM_DIR ?? join(env.HOME || homedir(), '.local', 'bin'));
}

export function onPath(dir: string, env: NodeJS.ProcessEnv = process.env): boolean {
  return (env.PATH ?? '').split(delimiter).some((p) => p && resolve(p) === dir);
}

export function installShim(
  opts: {
    env?: NodeJS.ProcessEnv;
    fs?: Fs;
    dir?: string;
    remove?: boolean;
    plan?: boolean;
    runtime?: ShimRuntime;
  } = {},
): Result<{ shim: ShimAnswer }> {
  const env = opts.env ?? process.env;
  const fs = opts.fs ?? liveFs;
  const rt = opts.runtime ? { ok: true as const, runtime: opts.runtime } : currentRuntime(env, __dirname, fs);
  if (!rt.ok) return rt;
  const dir = shimDir(env, opts.dir);
  const path = join(dir, 'rigdesk');
  let existing: string | undefined;
  try {
    existing = fs.existsSync(path) ? readRegularText(path, OWN_FILE_MAX_BYTES, fs).slice(0, 4096) : undefined;
  } catch (e) {
    return fail('BAD_USAGE', `cannot read ${path}: ${(e as Error).message}`);
  }
  const ours = existing?.split('\n').includes(MARK);
  const base = {
    path,
    dir,
    onPath: onPath(dir, env),
    runtime: rt.runtime,
    remove: `rigdesk install-shim --remove${opts.dir ? ` --dir ${q(dir)}` : ''}   (or: rm ${q(path)})`,
  };
  const hint = base.onPath
    ? {}
    : { pathHint: `${dir} is not on PATH; add it: echo 'export PATH="${dir}:$PATH"' >> ~/.profile` };
  if (existing !== undefined && !ours) {
    return fail('SHIM_CONFLICT', `${path} exists and is not a Rigdesk shim; it was left as it is`, {
      hint: 'Remove or rename it yourself, or pick another folder with --dir.',
      evidence: { path },
    });
  }
  if (opts.remove) {
    if (!ours) return { ok: true, shim: { ...base, action: 'absent' } };
    if (opts.plan) return { ok: true, shim: { ...base, action: 'would_remove' } };
    fs.rmSync(path, { force: true });
    return { ok: true, shim: { ...base, action: 'removed' } };
  }
  const script = shimScript(rt.runtime);
  if (existing === script) return { ok: true, shim: { ...base, ...hint, action: 'unchanged' } };
  if (opts.plan) return { ok: true, shim: { ...base, ...hint, action: 'would_install' } };
  try {
    fs.mkdirSync(dir, { recursive: true });
    // Written beside and renamed over, so a half-written shim is never on PATH.
    const tmp = join(dir, `.rigdesk-shim-${process.pid}`);
    fs.writeFileSync(tmp, script, { mode: 0o755 });
    fs.chmodSync(tmp, 0o755);
    fs.renameSync(tmp, path);
  } catch (e) {
    return fail('BAD_USAGE', `cannot write ${path}: ${(e as Error).message}`, {
      hint: 'Pick a folder you can write with --dir.',
    });
  }
  return { ok: true, shim: { ...base, ...hint, action: ours ? 'updated' : 'installed' } };
}
