import { copyFile, mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { ScratchFs } from './port';

/** The scratch folder port on this machine: a private temp folder per use, removed after it. */
export function liveScratchFs(base: string = tmpdir()): ScratchFs {
  return {
    makeTempDir: (prefix) => mkdtemp(join(base, prefix)),
    copyFile: (from, to) => copyFile(from, to),
    removeDir: (path) => rm(path, { recursive: true, force: true }),
  };
}
