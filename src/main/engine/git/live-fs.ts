import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Fs } from '../deps';
import type { ScratchFs } from './port';

/** The scratch folder port on this machine, over the engine's fs port: a private temp folder per use, removed after it. */
export function liveScratchFs(
  fs: Pick<Fs, 'mkdtempSync' | 'copyFileSync' | 'rmSync' | 'statSync' | 'utimesSync'>,
  base: string = tmpdir(),
): ScratchFs {
  return {
    makeTempDir: async (prefix) => fs.mkdtempSync(join(base, prefix)),
    // The copy keeps the index's times: git tells a file written in the same second as the index
    // from an unchanged one by comparing with the index's own mtime, which a fresh copy would lose.
    copyFile: async (from, to) => {
      fs.copyFileSync(from, to);
      const st = fs.statSync(from);
      fs.utimesSync(to, st.atime, st.mtime);
    },
    removeDir: async (path) => fs.rmSync(path, { recursive: true, force: true }),
  };
}
