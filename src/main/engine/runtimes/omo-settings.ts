import { liveFs } from '../deps';
import { dirname, join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { fail, type Result } from '../../../shared/errors';
import { whichOnPath } from './install';
import { localSettingsIO, readJsonObject, writeJsonAtomic, type SettingsIO } from './json-settings';

/**
 * An omo seat is OpenCode with oh-my-opencode's plugin, installed into the seat's own OpenCode
 * config (`$XDG_CONFIG_HOME/opencode/`) before launch, from the package this machine has (the one
 * whose `omo` is on the seat's PATH), never as `oh-my-openagent@latest`, which OpenCode would
 * fetch from the registry. Only where the seat's env sets XDG_CONFIG_HOME: a person's own
 * `~/.config/opencode` is never written, and a seat without its own is refused with why. For a seat
 * on another host, the package is the one whose `omo` is on that host's PATH (found there, never
 * this machine's path), and every file below is read and written there.
 *
 * OpenCode 1.18.33 also installs `@opencode-ai/plugin` into every config folder it loads, on every
 * start, and loads plugins only once that is done: it skips the install only when the folder has a
 * `node_modules` and every dependency of its `package.json` is in its `package-lock.json`. Offline
 * (or behind a proxy that refuses the registry) that install failed only after ~70 s, with a blank
 * screen. So Rigdesk links the local package's own `@opencode-ai/plugin` into the folder and records
 * it in both files: OpenCode then starts in seconds, and a plugin of the folder that imports
 * `@opencode-ai/plugin` still finds it.
 */
export const OMO_PLUGIN = {
  /** What omo's installer and a person write: npm specs of the package, any version. */
  spec: /^(?:oh-my-opencode|oh-my-openagent)(?:@.*)?$/,
  /** A file spec of some copy of the package's entry point. */
  file: /^file:\/\/.*\/oh-my-opencode\/dist\/index\.js$/,
  sdk: '@opencode-ai/plugin',
} as const;

export interface OmoPackage {
  root: string;
  entry: string;
  version: string;
}

/** The oh-my-opencode package whose `omo` is on this machine's PATH, or why none is. */
export function findOmoPackage(path: string | undefined): OmoPackage | { missing: string } {
  const bin = whichOnPath('omo', path);
  if (!bin) return { missing: 'omo is not on PATH' };
  let real: string;
  try {
    real = liveFs.realpathSync(bin);
  } catch (e) {
    return { missing: `cannot resolve ${bin}: ${(e as Error).message}` };
  }
  return omoPackageAt(real, localSettingsIO);
}

/**
 * The package an `omo` program belongs to, from its real path (`<root>/bin/oh-my-opencode.js`),
 * its files read through `io` (this machine's, or the host's where that program was found).
 */
export function omoPackageAt(realBin: string, io: SettingsIO): OmoPackage | { missing: string } {
  const root = dirname(dirname(realBin));
  const entry = join(root, 'dist', 'index.js');
  const pkgFile = join(root, 'package.json');
  // Both asked before either answer is used: a host answers them in one round trip.
  const text = attempt(() => io.readText(pkgFile));
  const hasEntry = attempt(() => io.exists(entry));
  if ('error' in text) return { missing: `cannot read ${pkgFile}: ${text.error.message}` };
  if (text.value === undefined) return { missing: `cannot read ${pkgFile}: it does not exist` };
  let pkg: { name?: unknown; version?: unknown };
  try {
    pkg = JSON.parse(text.value) as typeof pkg;
  } catch (e) {
    return { missing: `cannot read ${pkgFile}: ${(e as Error).message}` };
  }
  if ('error' in hasEntry) return { missing: `cannot tell whether ${entry} exists: ${hasEntry.error.message}` };
  if (pkg.name !== 'oh-my-opencode' || !hasEntry.value)
    return { missing: `${realBin} is not oh-my-opencode's (no ${entry})` };
  return { root, entry, version: String(pkg.version ?? '') };
}

function attempt<T>(f: () => T): { value: T } | { error: Error } {
  try {
    return { value: f() };
  } catch (e) {
    return { error: e as Error };
  }
}

/** The plugin list with every other copy of oh-my-opencode replaced by the local one. */
export function withLocalPlugin(list: unknown, entry: string): string[] {
  const mine = pathToFileURL(entry).href;
  const others = (Array.isArray(list) ? list : []).filter(
    (p): p is string => typeof p === 'string' && !OMO_PLUGIN.spec.test(p) && !OMO_PLUGIN.file.test(p) && p !== mine,
  );
  return [...others, mine];
}

export interface OmoSeatInput {
  seatEnv: Readonly<Record<string, string>>;
  env: Readonly<Record<string, string | undefined>>;
  dryRun: boolean;
  /** The seat's files: this machine's by default, or its host's. */
  io?: SettingsIO;
  /** Where `omo` is where the seat runs, links resolved (its host's answer); absent: this machine's PATH. */
  programPath?: (program: string) => string | undefined;
}

/** The package for the seat: found on its host when it runs on one, else on this machine's PATH. */
function seatPackage(input: OmoSeatInput, io: SettingsIO): OmoPackage | { missing: string } {
  if (!input.programPath) return findOmoPackage(input.env.PATH);
  const bin = input.programPath('omo');
  return bin ? omoPackageAt(bin, io) : { missing: 'omo is not on PATH' };
}

export function prepareOmoSeat(input: OmoSeatInput): Result<{ detail: string; wrote: string[] }> {
  const configHome = input.seatEnv.XDG_CONFIG_HOME?.trim();
  if (!configHome)
    return fail(
      'RUNTIME_CONFIG_UNSAFE',
      "an omo seat needs its own OpenCode config (XDG_CONFIG_HOME in its env): Rigdesk installs oh-my-opencode's plugin there, and never into your own ~/.config/opencode",
      {
        hint: 'Give the seat its own XDG_CONFIG_HOME (and XDG_DATA_HOME) in the rig spec, or run your own OpenCode with the plugin as runtime: opencode.',
        evidence: { variable: 'XDG_CONFIG_HOME' },
      },
    );
  const io = input.io ?? localSettingsIO;
  const dir = join(configHome, 'opencode');
  const pkg = seatPackage(input, io);
  const config = readJsonObject(join(dir, 'opencode.json'), io);
  if ('missing' in pkg)
    return fail('RUNTIME_NOT_INSTALLED', `oh-my-opencode is not installed for this seat (${pkg.missing})`, {
      hint: "Install it (npm install -g oh-my-opencode) or put its bin folder on the seat's PATH.",
      evidence: { program: 'omo', PATH: input.env.PATH ?? '' },
    });
  if (!config.ok)
    return fail('RUNTIME_CONFIG_UNSAFE', `cannot use ${join(dir, 'opencode.json')}: ${config.why}`, {
      hint: "Rigdesk rewrites only a plain JSON object there (the seat's own file); fix or remove it, then launch again.",
      evidence: { path: join(dir, 'opencode.json') },
    });
  const plugins = withLocalPlugin(config.value?.plugin, pkg.entry);
  const same = JSON.stringify(config.value?.plugin) === JSON.stringify(plugins);
  const detail = `oh-my-opencode ${pkg.version} from ${pkg.root} in ${join(dir, 'opencode.json')}`;
  if (input.dryRun) return { ok: true, detail: same ? detail : `launch installs ${detail}`, wrote: [] };
  const wrote: string[] = [];
  try {
    if (!same) {
      writeJsonAtomic(join(dir, 'opencode.json'), { ...config.value, plugin: plugins }, 0o644, io);
      wrote.push(join(dir, 'opencode.json'));
    }
    wrote.push(...markSdkInstalled(dir, pkg.root, io));
  } catch (e) {
    return fail('RUNTIME_CONFIG_UNSAFE', `cannot install oh-my-opencode into ${dir}: ${(e as Error).message}`, {
      evidence: { path: dir },
    });
  }
  return { ok: true, detail, wrote };
}

/**
 * Links the package's own `@opencode-ai/plugin` into the config folder and records it where
 * OpenCode looks before installing (see above). Leaves a folder that already has it alone.
 */
function markSdkInstalled(dir: string, pkgRoot: string, io: SettingsIO): string[] {
  const wrote: string[] = [];
  const link = join(dir, 'node_modules', ...OMO_PLUGIN.sdk.split('/'));
  const files = ['package.json', 'package-lock.json'].map((f) => join(dir, f));
  // Every file this step reads is asked before any answer is used: one round trip on a host.
  const sdk = packageDirFrom(pkgRoot, OMO_PLUGIN.sdk, io);
  const read = files.map((path) => ({ path, r: readJsonObject(path, io) }));
  const present = io.exists(link);
  // OpenCode skips its install only where the folder has a node_modules (made even without the SDK).
  io.ensureDir(dirname(link));
  let version = '*';
  if (sdk) {
    version = String((JSON.parse(sdk.packageJson) as { version?: unknown }).version);
    if (!present) {
      io.symlink(sdk.dir, link);
      wrote.push(link);
    }
  }
  const edits = [
    (o: Record<string, unknown>) => withDep(o, 'dependencies', version),
    (o: Record<string, unknown>) => withLockDep(o, version),
  ];
  for (const [i, { path, r }] of read.entries()) {
    if (!r.ok) throw new Error(`${path}: ${r.why}`);
    const next = edits[i]!(r.value ?? {});
    if (next) {
      writeJsonAtomic(path, next, 0o644, io);
      wrote.push(path);
    }
  }
  return wrote;
}

function withDep(o: Record<string, unknown>, key: string, version: string): Record<string, unknown> | undefined {
  const deps = (o[key] ?? {}) as Record<string, unknown>;
  if (typeof deps !== 'object' || Array.isArray(deps)) throw new Error(`"${key}" is not an object`);
  if (OMO_PLUGIN.sdk in deps) return undefined;
  return { ...o, [key]: { ...deps, [OMO_PLUGIN.sdk]: version } };
}

function withLockDep(o: Record<string, unknown>, version: string): Record<string, unknown> | undefined {
  const packages = (o.packages ?? {}) as Record<string, Record<string, unknown>>;
  const root = packages[''] ?? {};
  const next = withDep(root, 'dependencies', version);
  if (!next) return undefined;
  return { lockfileVersion: 3, ...o, packages: { ...packages, '': next } };
}

/**
 * Where node would find package `name` from `root` (its own node_modules, then each parent's),
 * and its package.json. Every candidate is read before one is chosen, so a host answers them in
 * one round trip; one that cannot be read is not there, as node would find it.
 */
function packageDirFrom(root: string, name: string, io: SettingsIO): { dir: string; packageJson: string } | undefined {
  const dirs: string[] = [];
  for (let dir = root; ; dir = dirname(dir)) {
    dirs.push(join(dir, 'node_modules', ...name.split('/')));
    if (dirname(dir) === dir) break;
  }
  const texts = dirs.map((d) => {
    try {
      return io.readText(join(d, 'package.json'));
    } catch {
      return undefined;
    }
  });
  const i = texts.findIndex((t) => t !== undefined);
  return i < 0 ? undefined : { dir: dirs[i]!, packageJson: texts[i]! };
}
