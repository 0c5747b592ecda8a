import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';

/**
 * better-sqlite3 uses V8's own API, so one build serves one runtime. npm builds it for Node (its
 * build/Release, which the CLI, `rigdesk serve` and the tests load); setup builds a second one for
 * Electron's ABI beside it (scripts/desktop.mjs), and the packaged app carries that one.
 * Under Electron (process.versions.electron, also set with ELECTRON_RUN_AS_NODE, as the packaged
 * CLI runs) the store opens with the build for the running ABI; under Node, better-sqlite3's own
 * lookup. node-pty is N-API and serves both runtimes from one build.
 */
export function electronBindingFile(
  packageDir: string,
  abi: string,
  platform: string = process.platform,
  arch: string = process.arch,
): string {
  return join(packageDir, 'lib', 'binding', `electron-v${abi}-${platform}-${arch}`, 'better_sqlite3.node');
}

let cached: string | undefined;

/** The `nativeBinding` option for `new Database(...)`: a file under Electron, else undefined. */
export function sqliteNativeBinding(versions: NodeJS.ProcessVersions = process.versions): string | undefined {
  if (!versions.electron) return undefined;
  if (!cached) {
    const pkg = dirname(createRequire(__filename).resolve('better-sqlite3/package.json'));
    // Native files are unpacked beside the app's archive (electron-builder.yml: asarUnpack).
    cached = electronBindingFile(pkg.replace(/app\.asar([\\/])/, 'app.asar.unpacked$1'), versions.modules);
  }
  return cached;
}
