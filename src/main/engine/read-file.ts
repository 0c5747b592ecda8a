import * as nodeFs from 'node:fs';
import type { Stats } from 'node:fs';
import { fail, type Failure } from '../../shared/errors';

/**
 * How the engine (and the CLI) read a file somebody else may have put there: a spec, a
 * transcript, a hook file, a settings file, the text to send. The engine's reads are synchronous,
 * so a FIFO with no writer (or a terminal) would park its one thread in `open()` and every window
 * and command with it, and a device like /dev/zero would fill its memory. Here the open never
 * waits (`O_NONBLOCK`, and `O_NOCTTY` so a terminal never becomes ours), anything but a regular
 * file is refused from its `fstat`, a file larger than the reader's limit is refused before a
 * byte is read, and no read goes past the limit even if the file grows meanwhile.
 */

/** Limits of what the engine reads whole: a settings or config file, a hook's event, its own small files. */
export const CONFIG_MAX_BYTES = 4 * 1024 * 1024;
export const HOOK_FILE_MAX_BYTES = 1024 * 1024;
export const OWN_FILE_MAX_BYTES = 1024 * 1024;

const OPEN_FLAGS = nodeFs.constants.O_RDONLY | nodeFs.constants.O_NONBLOCK | nodeFs.constants.O_NOCTTY;

/** The calls a bounded read makes: the engine's fs port satisfies it, node:fs is the default. */
export type ReadFs = Pick<typeof nodeFs, 'openSync' | 'fstatSync' | 'readSync' | 'closeSync'>;

/** Why a file was not read: not a regular file (`ENOTREG`), or more bytes than allowed (`EFBIG`). */
export class FileRefused extends Error {
  constructor(
    readonly code: 'ENOTREG' | 'EFBIG',
    readonly path: string,
    readonly limit: number,
    readonly found: string,
  ) {
    super(
      code === 'ENOTREG'
        ? `${path} is ${found}, not a regular file`
        : `${path} is ${found}; at most ${limit} bytes are read`,
    );
  }
}

function kindOf(st: Stats): string {
  if (st.isFIFO()) return 'a FIFO';
  if (st.isCharacterDevice()) return 'a character device';
  if (st.isBlockDevice()) return 'a block device';
  if (st.isSocket()) return 'a socket';
  return 'not a plain file';
}

/** An open regular file's descriptor, or a throw (ENOENT, EISDIR as fs gives them; FileRefused). */
function openRegular(path: string, limit: number, fs: ReadFs = nodeFs): { fd: number; size: number } {
  const fd = fs.openSync(path, OPEN_FLAGS);
  try {
    const st = fs.fstatSync(fd);
    if (st.isDirectory())
      throw Object.assign(new Error(`EISDIR: illegal operation on a directory, read '${path}'`), { code: 'EISDIR' });
    if (!st.isFile()) throw new FileRefused('ENOTREG', path, limit, kindOf(st));
    if (st.size > limit) throw new FileRefused('EFBIG', path, limit, `${st.size} bytes`);
    return { fd, size: st.size };
  } catch (e) {
    fs.closeSync(fd);
    throw e;
  }
}

/** Reads `fd` to its end, refusing (and closing it either way) once it gave more than `limit` bytes. */
function readToEnd(fd: number, path: string, limit: number, fs: ReadFs = nodeFs): Buffer {
  try {
    const buf = Buffer.allocUnsafe(limit + 1);
    let n = 0;
    while (n <= limit) {
      const got = fs.readSync(fd, buf, n, limit + 1 - n, null);
      if (got === 0) break;
      n += got;
    }
    if (n > limit) throw new FileRefused('EFBIG', path, limit, `more than ${limit} bytes`);
    return buf.subarray(0, n);
  } finally {
    fs.closeSync(fd);
  }
}

/** A regular file of at most `limit` bytes, whole (one that grows past it meanwhile is refused). */
export function readRegular(path: string, limit: number, fs: ReadFs = nodeFs): Buffer {
  return readToEnd(openRegular(path, limit, fs).fd, path, limit, fs);
}

export function readRegularText(path: string, limit: number, fs: ReadFs = nodeFs): string {
  return readRegular(path, limit, fs).toString('utf8');
}

/** The last `bytes` of a regular file of any size. */
export function readRegularTail(path: string, bytes: number, fs: ReadFs = nodeFs): string {
  const { fd, size } = openRegular(path, Number.MAX_SAFE_INTEGER, fs);
  try {
    const len = Math.min(size, bytes);
    const buf = Buffer.alloc(len);
    const n = fs.readSync(fd, buf, 0, len, size - len);
    return buf.subarray(0, n).toString('utf8');
  } finally {
    fs.closeSync(fd);
  }
}

/**
 * A regular file opened for reading a piece at a time (a transcript's tail): the descriptor, or
 * undefined when nothing is there.
 */
export function openRegularFile(path: string, fs: ReadFs = nodeFs): number | undefined {
  try {
    return openRegular(path, Number.MAX_SAFE_INTEGER, fs).fd;
  } catch (e) {
    const code = (e as NodeJS.ErrnoException).code;
    if (code === 'ENOENT' || code === 'ENOTDIR') return undefined;
    throw e;
  }
}

/**
 * Up to `limit` bytes of a stream the person chose to wait on (the CLI's `/dev/stdin`): it blocks
 * until the writer ends, but more than `limit` bytes is refused (FileRefused EFBIG), never kept.
 */
export function readAtMost(path: string, limit: number): string {
  return readToEnd(nodeFs.openSync(path, 'r'), path, limit).toString('utf8');
}

/** A refusal as data: `what` names the file to a person ("the spec", "the text to send"). */
export function refusedFile(e: unknown, what: string): Failure | undefined {
  if (!(e instanceof FileRefused)) return undefined;
  const evidence = { file: e.path, limitBytes: e.limit, found: e.found };
  return e.code === 'ENOTREG'
    ? fail('FILE_NOT_REGULAR', `${what} ${e.path} is ${e.found}, not a regular file; it was not read`, {
        hint: 'Give the path of a regular file (not a FIFO, a device or a socket).',
        evidence,
      })
    : fail('FILE_TOO_LARGE', `${what} ${e.path} is ${e.found}; the limit is ${e.limit} bytes`, {
        hint: `Use a file of at most ${e.limit} bytes.`,
        evidence,
      });
}
