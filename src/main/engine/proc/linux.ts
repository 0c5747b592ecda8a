import {
  closeSync,
  constants as fsConstants,
  fstatSync,
  openSync,
  readdirSync,
  readFileSync,
  readlinkSync,
  readSync,
  statSync,
} from 'node:fs';
import { readFile } from 'node:fs/promises';
import { HELD, type HeldFiles, type HeldProcFiles } from './held';
import { buildSnapshot } from './lineage';
import type { FileLock, ProcInfo, ProcReader, ProcSnapshot } from './types';

/**
 * The process table straight from /proc, synchronously and without spawning anything.
 *
 * Per process a snapshot costs two files: `stat` (ids, tty, start time, comm) and `cmdline`. The
 * uid is the owner of the open `stat` file (one fstat on a descriptor already open; the owner of
 * /proc/<pid> is the effective uid, except for non-dumpable processes, which the kernel shows as
 * root). Kernel threads (PF_KTHREAD in stat's flags) cost the stat read only: uid 0, argv [].
 * Reads go through one reused buffer with open/read/close and a byte-level stat parser, not
 * readFileSync + split: readFileSync alone made a 1,000-process snapshot ~2x slower here.
 */

const O_RDONLY = fsConstants.O_RDONLY;

export interface LinuxProcReaderOptions {
  /** Where procfs is mounted; tests point it at a fake tree. Default '/proc'. */
  procRoot?: string;
  /**
   * Where each process's stat and cmdline stay open between snapshots (proc/held.ts): by default the
   * process-wide set, for /proc only; `false`, none held.
   */
  held?: HeldProcFiles | false;
}

/**
 * A held process's files, read again at offset 0. The pid is still that process only while its
 * stat answers with the same start time: a process that ended answers ESRCH through a descriptor
 * opened before, and a new process under the same pid is read afresh by path.
 */
function readKept(io: Reader, pid: number, kept: HeldFiles): ProcInfo | undefined {
  let head: ParsedStat | undefined;
  let uid = 0;
  let argv: string[] = [];
  try {
    head = parseStatBytes(io.buf, io.readFd(kept.stat, 0), pid);
    if (!head || head.startTime !== kept.startTime) return undefined;
    if (head.kthread) return { ...publicStat(head), argv: [], uid: 0 };
    uid = fstatSync(kept.stat).uid;
    if (kept.cmdline !== undefined) argv = cmdlineFromBytes(io.buf, io.readFd(kept.cmdline, 0));
  } catch {
    return undefined;
  }
  return { ...publicStat(head), argv, uid };
}

export function linuxProcReader(opts: LinuxProcReaderOptions = {}): ProcReader {
  const root = (opts.procRoot ?? '/proc').replace(/\/+$/, '') || '/';
  const io = new Reader();
  // Only the real procfs: a held descriptor of a fake tree's file would read a replaced file's old text.
  const held = opts.held === false ? undefined : (opts.held ?? (root === '/proc' ? HELD : undefined));

  const readOne = (pid: number, hold = false) => readProcess(root, io, pid, hold ? held : undefined);

  return {
    snapshot(): ProcSnapshot {
      const takenAt = Date.now();
      let names: string[];
      try {
        names = readdirSync(root);
      } catch {
        return buildSnapshot([], takenAt);
      }
      const procs: ProcInfo[] = [];
      const seen = new Set<number>();
      for (const name of names) {
        if (!isPidName(name)) continue;
        const pid = Number(name);
        seen.add(pid);
        const info = readOne(pid, true);
        if (info) procs.push(info);
      }
      held?.keepOnly(seen);
      return buildSnapshot(procs, takenAt);
    },

    read(pid: number): ProcInfo | undefined {
      if (!Number.isSafeInteger(pid) || pid <= 0) return undefined;
      return readOne(pid);
    },

    cwd(pid: number): string | undefined {
      if (!Number.isSafeInteger(pid) || pid <= 0) return undefined;
      try {
        return readlinkSync(`${root}/${pid}/cwd`);
      } catch (e) {
        return gateError(e);
      }
    },

    environ(pid: number): Record<string, string> | undefined {
      if (!Number.isSafeInteger(pid) || pid <= 0) return undefined;
      let raw: string;
      try {
        raw = readFileSync(`${root}/${pid}/environ`, 'utf8');
      } catch (e) {
        return gateError(e);
      }
      return parseEnviron(raw);
    },

    locks(): FileLock[] {
      let raw: string;
      try {
        raw = readFileSync(`${root}/locks`, 'utf8');
      } catch {
        return [];
      }
      return parseLocks(raw);
    },

    locksAsync(): Promise<FileLock[]> {
      return readFile(`${root}/locks`, 'utf8').then(parseLocks, () => []);
    },
  };
}

/** One process by its /proc files; through (and into) `held` when given, by path otherwise. */
function readProcess(root: string, io: Reader, pid: number, held: HeldProcFiles | undefined): ProcInfo | undefined {
  const dir = `${root}/${pid}`;
  const kept = held?.get(pid);
  if (kept) {
    const info = readKept(io, pid, kept);
    if (info) return info;
    held!.drop(pid); // gone, or its pid now another process's: read it afresh below
  }
  let head: ParsedStat | undefined;
  let uid = 0;
  let statFd: number | undefined;
  try {
    statFd = openSync(`${dir}/stat`, O_RDONLY);
    head = parseStatBytes(io.buf, io.readFd(statFd), pid);
    // Kernel threads are root's and have no arguments: no fstat, no cmdline read for them.
    if (head && !head.kthread) uid = fstatSync(statFd).uid;
  } catch {
    if (statFd !== undefined) closeSync(statFd);
    // Gone (ENOENT/ESRCH), or not a process directory we understand: either way not in the table.
    return undefined;
  }
  const keep = head && held?.room() ? statFd : undefined;
  if (keep === undefined) closeSync(statFd);
  if (!head) return undefined;
  if (head.kthread) {
    if (keep !== undefined) held!.set(pid, { stat: keep, startTime: head.startTime });
    return { ...publicStat(head), argv: [], uid: 0 };
  }
  let argv: string[];
  let cmdFd: number | undefined;
  try {
    cmdFd = openSync(`${dir}/cmdline`, O_RDONLY);
    argv = cmdlineFromBytes(io.buf, io.readFd(cmdFd));
  } catch (e) {
    if (cmdFd !== undefined) closeSync(cmdFd);
    cmdFd = undefined;
    if (isGone(e)) {
      if (keep !== undefined) closeSync(keep);
      return undefined;
    }
    argv = []; // EACCES and anything stranger: the process exists, its arguments are not ours to see.
  }
  if (keep !== undefined) held!.set(pid, { stat: keep, cmdline: cmdFd, startTime: head.startTime });
  else if (cmdFd !== undefined) closeSync(cmdFd);
  return {
    pid,
    ppid: head.ppid,
    pgid: head.pgid,
    sid: head.sid,
    tpgid: head.tpgid,
    ttyNr: head.ttyNr,
    startTime: head.startTime,
    comm: head.comm,
    argv,
    uid,
  };
}

type StatFields = Omit<ProcInfo, 'argv' | 'uid'>;
interface ParsedStat extends StatFields {
  /** PF_KTHREAD in the flags field (9). */
  kthread: boolean;
}

const PF_KTHREAD = 0x00200000;

function publicStat(h: ParsedStat): StatFields {
  return {
    pid: h.pid,
    ppid: h.ppid,
    pgid: h.pgid,
    sid: h.sid,
    tpgid: h.tpgid,
    ttyNr: h.ttyNr,
    startTime: h.startTime,
    comm: h.comm,
  };
}

/** `/proc/<pid>/stat` minus argv and uid; undefined when the text is not a stat line for `pid`. */
export function parseStat(text: string, pid: number): StatFields | undefined {
  const b = Buffer.from(text, 'utf8');
  const h = parseStatBytes(b, b.length, pid);
  return h && publicStat(h);
}

/**
 * The byte-level parser behind parseStat, run on the read buffer without building the whole line
 * as a string. Layout: `pid (comm) state ppid pgrp session tty_nr tpgid ... starttime(22) ...`.
 * comm sits in parentheses and may itself contain spaces and ')': it ends at the LAST ')'. A line
 * cut before the space that ends field 22 is rejected.
 */
function parseStatBytes(b: Buffer, len: number, pid: number): ParsedStat | undefined {
  if (len < 4) return undefined;
  // "<pid> ("
  let i = 0;
  let lead = 0;
  while (i < len && i < 11) {
    const c = b[i]! - 48;
    if (c < 0 || c > 9) break;
    lead = lead * 10 + c;
    i++;
  }
  if (i === 0 || lead !== pid || b[i] !== 0x20 || b[i + 1] !== 0x28) return undefined;
  const commStart = i + 2;
  const close = b.lastIndexOf(0x29, len - 1);
  if (close < commStart || b[close + 1] !== 0x20) return undefined;
  let ppid = 0;
  let pgid = 0;
  let sid = 0;
  let ttyNr = 0;
  let tpgid = 0;
  let startTime = '';
  let flags = 0;
  // Fields after comm, from 0: [0]=state(3) [1]=ppid(4) [2]=pgrp(5) [3]=session(6) [4]=tty_nr(7) [5]=tpgid(8) ... [19]=starttime(22)
  let p = close + 2;
  for (let f = 0; f <= 19; f++) {
    let e = p;
    while (e < len && b[e] !== 0x20) e++;
    if (e >= len || e === p) return undefined; // every field up to starttime must end with a space
    if (f >= 1 && f <= 5) {
      let q = p;
      const neg = b[q] === 0x2d;
      if (neg) q++;
      if (q === e || e - q > 15) return undefined;
      let v = 0;
      for (; q < e; q++) {
        const c = b[q]! - 48;
        if (c < 0 || c > 9) return undefined;
        v = v * 10 + c;
      }
      if (neg) v = -v;
      if (f === 1) ppid = v;
      else if (f === 2) pgid = v;
      else if (f === 3) sid = v;
      else if (f === 4) ttyNr = v;
      else tpgid = v;
    } else if (f === 6) {
      if (e - p > 10) return undefined;
      for (let q = p; q < e; q++) {
        const c = b[q]! - 48;
        if (c < 0 || c > 9) return undefined;
        flags = flags * 10 + c;
      }
    } else if (f === 19) {
      if (e - p > 20) return undefined;
      for (let q = p; q < e; q++) {
        const c = b[q]! - 48;
        if (c < 0 || c > 9) return undefined;
      }
      startTime = b.toString('latin1', p, e);
    }
    p = e + 1;
  }
  // flags is a u32: the bit test must not go through a signed 32-bit `&` on a value >= 2^31
  const kthread = Math.floor(flags / PF_KTHREAD) % 2 === 1;
  return { pid, ppid, pgid, sid, tpgid, ttyNr, startTime, comm: b.toString('utf8', commStart, close), kthread };
}

function cmdlineFromBytes(b: Buffer, len: number): string[] {
  let end = len;
  while (end > 0 && b[end - 1] === 0) end--;
  if (end === 0) return [];
  return b.toString('utf8', 0, end).split('\0');
}

/**
 * NUL-separated arguments. A program that rewrote its argv (process.title, setproctitle) may show
 * one string with spaces followed by a run of NULs: kept as that one string; trailing empty
 * entries are dropped.
 */
export function parseCmdline(raw: string): string[] {
  if (raw.length === 0) return [];
  const parts = raw.split('\0');
  let end = parts.length;
  while (end > 0 && parts[end - 1] === '') end -= 1;
  return end === parts.length ? parts : parts.slice(0, end);
}

/** `KEY=value` entries separated by NUL; the first definition of a key wins (as getenv does). */
export function parseEnviron(raw: string): Record<string, string> {
  const env: Record<string, string> = Object.create(null) as Record<string, string>;
  for (const entry of raw.split('\0')) {
    const eq = entry.indexOf('=');
    if (eq <= 0) continue;
    const key = entry.slice(0, eq);
    if (!(key in env)) env[key] = entry.slice(eq + 1);
  }
  return env;
}

/**
 * `/proc/locks`, e.g. `1: FLOCK  ADVISORY  WRITE 21390 fd:01:1234567 0 EOF`. Lines for blocked
 * waiters (`1: -> FLOCK ...`) are skipped: they hold nothing. Device major/minor are hex there,
 * the inode decimal.
 */
export function parseLocks(raw: string): FileLock[] {
  const out: FileLock[] = [];
  for (const line of raw.split('\n')) {
    let body = line.trim();
    const idm = /^\d+:\s*/.exec(body);
    if (idm) body = body.slice(idm[0].length);
    if (body.length === 0 || body.startsWith('->')) continue;
    const t = body.split(/\s+/);
    if (t.length < 5) continue;
    const [kind, , mode, pidText, devText] = t as [string, string, string, string, string];
    const pid = int(pidText);
    const dev = /^([0-9a-fA-F]+):([0-9a-fA-F]+):(\d+)$/.exec(devText);
    if (pid === undefined || !dev) continue;
    const inode = Number(dev[3]);
    if (!Number.isSafeInteger(inode)) continue;
    out.push({ kind, mode, pid, devMajor: parseInt(dev[1]!, 16), devMinor: parseInt(dev[2]!, 16), inode });
  }
  return out;
}

/** Device and inode of a path, in the numbers /proc/locks uses. Throws what fs.statSync throws. */
export function deviceOf(path: string): { devMajor: number; devMinor: number; inode: number } {
  const st = statSync(path, { bigint: true });
  return { ...splitDev(st.dev), inode: Number(st.ino) };
}

/**
 * glibc's major()/minor() of a Linux dev_t. Done in BigInt: JS `>>` works on 32 bits, so
 * `dev >> 32` on a number would silently be `dev >> 0`.
 */
export function splitDev(dev: bigint | number): { devMajor: number; devMinor: number } {
  const d = BigInt(dev);
  const major = ((d >> 8n) & 0xfffn) | ((d >> 32n) & 0xfffff000n);
  const minor = (d & 0xffn) | ((d >> 12n) & 0xffffff00n);
  return { devMajor: Number(major), devMinor: Number(minor) };
}

// ---------------------------------------------------------------------------------------------

function isPidName(name: string): boolean {
  const n = name.length;
  if (n === 0 || n > 10) return false;
  for (let i = 0; i < n; i++) {
    const c = name.charCodeAt(i);
    if (c < 48 || c > 57) return false;
  }
  return name.charCodeAt(0) !== 48;
}

function int(s: string | undefined): number | undefined {
  if (s === undefined || !/^-?\d{1,15}$/.test(s)) return undefined;
  return Number(s);
}

function errCode(e: unknown): string | undefined {
  const c = (e as { code?: unknown } | null)?.code;
  return typeof c === 'string' ? c : undefined;
}

function isGone(e: unknown): boolean {
  const c = errCode(e);
  return c === 'ENOENT' || c === 'ESRCH' || c === 'ENOTDIR';
}

/** cwd/environ error rule: gone -> undefined; not permitted -> Error with code EACCES; else rethrow. */
function gateError(e: unknown): undefined {
  if (isGone(e)) return undefined;
  const c = errCode(e);
  if (c === 'EACCES' || c === 'EPERM') {
    const err = new Error(`permission denied: ${(e as Error).message}`) as Error & { code: string };
    err.code = 'EACCES';
    throw err;
  }
  throw e;
}

/** Whole-file reads into one reused, growing buffer. */
class Reader {
  buf = Buffer.allocUnsafe(16 * 1024);

  /** Reads an open file from `at` (absent: its current position) to the end into `buf`; returns the length. */
  readFd(fd: number, at?: number): number {
    let total = 0;
    for (;;) {
      if (total === this.buf.length) {
        if (total >= 64 * 1024 * 1024) break; // a sane ceiling; ARG_MAX is far below
        const bigger = Buffer.allocUnsafe(this.buf.length * 2);
        this.buf.copy(bigger, 0, 0, total);
        this.buf = bigger;
      }
      const want = this.buf.length - total;
      const n = readSync(fd, this.buf, total, want, at === undefined ? null : at + total);
      total += n;
      // procfs hands over a whole record per read, as regular files do: a short read is the end.
      if (n < want) break;
    }
    return total;
  }
}
