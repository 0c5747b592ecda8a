import { closeSync, existsSync, fstatSync, openSync, readdirSync, readFileSync, readSync, statSync } from 'node:fs';
import { splitDev } from './proc/linux';
import type { EvidenceIO } from './runtimes/types';

/** The live file reads behind runtime evidence: absent is empty, unreadable throws. */
export const liveEvidenceIO: EvidenceIO = {
  listDir(path) {
    try {
      return readdirSync(path);
    } catch (e) {
      const code = (e as NodeJS.ErrnoException).code;
      if (code === 'ENOENT' || code === 'ENOTDIR') return [];
      throw e;
    }
  },
  readFile: (path) => readFileSync(path, 'utf8'),
  exists: (path) => existsSync(path),
  fileId(path) {
    try {
      const st = statSync(path, { bigint: true });
      return { ...splitDev(st.dev), inode: Number(st.ino) };
    } catch (e) {
      const code = (e as NodeJS.ErrnoException).code;
      if (code === 'ENOENT' || code === 'ENOTDIR') return undefined; // released and removed as we looked
      throw e;
    }
  },
  readTail(path, bytes) {
    const fd = openSync(path, 'r');
    try {
      const size = fstatSync(fd).size;
      const len = Math.min(size, bytes);
      const buf = Buffer.alloc(len);
      readSync(fd, buf, 0, len, size - len);
      return buf.toString('utf8');
    } finally {
      closeSync(fd);
    }
  },
};
