import { type Fs, liveFs } from './deps';
import { splitDev } from './proc/linux';
import type { EvidenceIO } from './runtimes/types';

/** The file reads behind runtime evidence, over a file system: absent is empty, unreadable throws. */
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
    readFile: (path) => fs.readFileSync(path, 'utf8'),
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
    readTail(path, bytes) {
      const fd = fs.openSync(path, 'r');
      try {
        const size = fs.fstatSync(fd).size;
        const len = Math.min(size, bytes);
        const buf = Buffer.alloc(len);
        fs.readSync(fd, buf, 0, len, size - len);
        return buf.toString('utf8');
      } finally {
        fs.closeSync(fd);
      }
    },
  };
}

/** This machine's evidence files. */
export const liveEvidenceIO: EvidenceIO = evidenceIO(liveFs);
