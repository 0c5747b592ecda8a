import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Fs } from '../deps';
import type { ScratchFs } from './port';

/** The scratch folder port on this machine, over the engine's fs port: a private temp folder per use, removed after it. */
export function liveScratchFs(
  fs: Pick<Fs, 'mkdtempSync' | 'copyFileSync' | 'rmSync'>,
  base: string = tmpdir(),
): ScratchFs {
  return {
    makeTempDir: async (prefix) => fs.mkdtempSync(join(base, prefix)),
    copyFile: async (from, to) => fs.copyFileSync(from, to),
    removeDir: async (path) => fs.rmSync(path, { recursive: true, force: true }),
  };
}
