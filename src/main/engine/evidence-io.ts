import { type Fs, liveFs } from './deps';
import { splitDev } from './proc/linux';
import { readRegularTail, readRegularText } from './read-file';
import type { EvidenceIO } from './runtimes/types';

/**
 * The most of one evidence file read whole (a live-state file, a session header's file, a Gemini
 * session): far above what a runtime writes, and a bound on what a device there could cost.
 */
export const EVIDENCE_FILE_MAX_BYTES = 256 * 1024 * 1024;

/**
 * The file reads behind runtime evidence, over a file system: absent is empty, unreadable throws. A
 * FIFO or a device where a transcript should be is refused, never waited on (read-file.ts).
 */
export function evidenceIO(fs: Fs): EvidenceIO {
  return {
    listDir(path) {
      try {
        return fs.readdirSync(path);
      } catch (e) {
        const code = (e as NodeJS.ErrnoException).code;
        if (code === 'ENOENT' || code === 'ENOTDIR') return [];
        throw e;
      }
    },
    readFile: (path) => readRegularText(path, EVIDENCE_FILE_MAX_BYTES, fs),
    exists: (path) => fs.existsSync(path),
    fileId(path) {
      try {
        const st = fs.statSync(path, { bigint: true });
        return { ...splitDev(st.dev), inode: Number(st.ino) };
      } catch (e) {
        const code = (e as NodeJS.ErrnoException).code;
        if (code === 'ENOENT' || code === 'ENOTDIR') return undefined; // released and removed as we looked
        throw e;
      }
    },
    readTail: (path, bytes) => readRegularTail(path, bytes, fs),
  };
}

/** This machine's evidence files. */
export const liveEvidenceIO: EvidenceIO = evidenceIO(liveFs);
