/** Where a runtime's CLI is found on a PATH (each adapter's installHint says how to install one that is missing). */
import { type Fs, liveFs } from '../deps';
import { delimiter, isAbsolute, join } from 'node:path';
import type { RuntimeAdapter } from './types';

/** Finds a program on a PATH the way a shell would; the seat's own PATH wins over the engine's. */
export function whichOnPath(
  program: string,
  pathVar: string | undefined,
  fs: Pick<Fs, 'accessSync' | 'constants' | 'statSync'> = liveFs,
): string | undefined {
  const isExec = (p: string) => {
    try {
      fs.accessSync(p, fs.constants.X_OK);
      return fs.statSync(p).isFile();
    } catch {
      return false;
    }
  };
  if (program.includes('/')) return isAbsolute(program) && isExec(program) ? program : undefined;
  for (const dir of (pathVar ?? '').split(delimiter)) {
    if (!dir) continue;
    const p = join(dir, program);
    if (isExec(p)) return p;
  }
  return undefined;
}

/**
 * A runtime's program on a PATH, and what else it needs there that is missing (omo's own CLI
 * beside OpenCode): found only when nothing is missing.
 */
export function runtimeOnPath(
  r: Pick<RuntimeAdapter, 'binary' | 'needs'>,
  pathVar: string | undefined,
  fs: Pick<Fs, 'accessSync' | 'constants' | 'statSync'> = liveFs,
): { path?: string; missing: string[] } {
  const path = r.binary ? whichOnPath(r.binary, pathVar, fs) : undefined;
  const missing = [
    ...(path || !r.binary ? [] : [r.binary]),
    ...(r.needs ?? []).filter((n) => !whichOnPath(n, pathVar, fs)),
  ];
  return { ...(path ? { path } : {}), missing };
}
