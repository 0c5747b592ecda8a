import { existsSync } from 'node:fs';
import { linuxProcReader } from './linux';
import type { ProcReader } from './types';

export * from './types';
export * from './lineage';
export { linuxProcReader, deviceOf, splitDev, parseLocks } from './linux';
export { psProcReader } from './ps';

/** The process table of this machine: /proc where it exists (no spawn per read). */
export function liveProcReader(): ProcReader {
  if (existsSync('/proc/self/stat')) return linuxProcReader();
  throw new Error('this platform has no /proc; use psProcReader (async) instead');
}
