import type { ProcInfo } from '../../../src/main/engine/proc/types';
import type { EvidenceIO } from '../../../src/main/engine/runtimes/types';

/** A process as /proc would present it; only comm and argv matter to the adapters. */
export function proc(comm: string, argv: string[], extra: Partial<ProcInfo> = {}): ProcInfo {
  return {
    pid: 4242,
    ppid: 1,
    pgid: 4242,
    sid: 4242,
    tpgid: 4242,
    ttyNr: 34816,
    startTime: '30509',
    comm,
    argv,
    uid: 1000,
    ...extra,
  };
}

export function errno(code: string, path: string): NodeJS.ErrnoException {
  return Object.assign(new Error(`${code}: simulated, '${path}'`), { code, path });
}

type FileId = { devMajor: number; devMinor: number; inode: number };

/**
 * Evidence files held in memory. A directory or file given as an Error throws it when read, the way
 * the live reader does for EACCES; a missing directory lists as empty; a missing file throws ENOENT.
 */
export function memoryIO(spec: {
  dirs?: Record<string, string[] | Error>;
  files?: Record<string, string | Error>;
  ids?: Record<string, FileId>;
}): EvidenceIO & { reads: string[] } {
  const dirs = spec.dirs ?? {};
  const files = spec.files ?? {};
  const ids = spec.ids ?? {};
  const reads: string[] = [];
  return {
    reads,
    listDir(path) {
      const d = dirs[path];
      if (d instanceof Error) throw d;
      return d ? [...d] : [];
    },
    readFile(path) {
      reads.push(path);
      const f = files[path];
      if (f instanceof Error) throw f;
      if (f === undefined) throw errno('ENOENT', path);
      return f;
    },
    exists: (path) => typeof files[path] === 'string' || Array.isArray(dirs[path]),
    fileId: (path) => ids[path],
  };
}
