import { statSync } from 'node:fs';
import type { Exec } from '../deps';
import { buildSnapshot } from './lineage';
import { splitDev } from './linux';
import type { AsyncProcReader, ProcInfo, ProcSnapshot } from './types';

/**
 * Fallback process table for systems without /proc (macOS): ONE spawn of
 *
 *   ps -ax -ww -o pid=,ppid=,pgid=,sess=,tpgid=,uid=,tty=,lstart=,comm=,args=
 *
 * with LC_ALL=C and TZ=UTC, so `lstart` always reads `Sun Nov 29 08:16:45 2026` (5 tokens) and does
 * not jump at a daylight-saving change (it is the startTime identity here; 1 s resolution).
 *
 * Portability, checked against procps-ng 4.0 and the BSD/Darwin keyword table:
 * - every keyword exists in both; `tty=` is added (both have it) to recover the controlling tty.
 * - `sess` is the session id on procps, but on Darwin it is the kernel session *pointer* printed
 *   in hex (usually 0 now that pointers are hidden), and Darwin has no `sid`. So off Linux the
 *   column is read but ignored: sid is derived as the topmost ancestor-or-self on the same
 *   controlling tty (the shell that opened the terminal session), or 0 without a tty.
 * - `comm` and `args` both contain spaces. ps prints every column but the last left- or
 *   right-aligned to one width for all rows (procps: comm is 15 wide; BSD: widest value), so the
 *   comm/args boundary is found as the one offset that splits (almost) every row; rows that
 *   disagree (a procps row shifted by an overflowing column) are split at the first run of spaces.
 * - `args` is argv joined by spaces: argv here is that split on single spaces, lossy for arguments
 *   that contain spaces. `[kthread]` / `[name] <defunct>` / `(name)` (no readable args) give [].
 * - off Linux, a `comm` that is a path is cut to its basename.
 * - ttyNr comes from stat(/dev/<tty>).rdev (cached per snapshot), re-encoded as the kernel's
 *   tty_nr on Linux so it equals /proc/<pid>/stat's; tpgid <= 0 is normalised to -1.
 */

export const PS_COLUMNS = 'pid=,ppid=,pgid=,sess=,tpgid=,uid=,tty=,lstart=,comm=,args=';
export const PS_ARGS: readonly string[] = ['-ax', '-ww', '-o', PS_COLUMNS];

export interface PsProcReaderOptions {
  /** Whose ps dialect to expect (`sess` meaning, comm paths, tty numbering). Default process.platform. */
  platform?: NodeJS.Platform;
  timeoutMs?: number;
}

export function psProcReader(exec: Exec, opts: PsProcReaderOptions = {}): AsyncProcReader {
  const platform = opts.platform ?? process.platform;
  const snapshotAsync = async (): Promise<ProcSnapshot> => {
    const takenAt = Date.now();
    const res = await exec('ps', PS_ARGS, {
      env: { ...process.env, LC_ALL: 'C', LANG: 'C', TZ: 'UTC' },
      timeoutMs: opts.timeoutMs ?? 10_000,
    });
    if (res.spawnError) throw new Error(`ps could not start: ${res.spawnError}`);
    if (res.code !== 0 && res.stdout.trim() === '') {
      throw new Error(`ps failed (code ${res.code}, signal ${res.signal}): ${res.stderr.trim()}`);
    }
    return buildSnapshot(parsePsOutput(res.stdout, platform), takenAt);
  };
  return {
    snapshotAsync,
    // One spawn either way; the whole table is what makes the comm/args boundary unambiguous.
    readAsync: async (pid: number) => (await snapshotAsync()).byPid.get(pid),
  };
}

interface PsRow {
  pid: number;
  ppid: number;
  pgid: number;
  sess: string;
  tpgid: number;
  uid: number;
  tty: string;
  lstart: string;
  rest: string;
}

const ROW =
  /^\s*(\d+)\s+(\d+)\s+(-?\d+)\s+(\S+)\s+(-?\d+)\s+(-?\d+)\s+(\S+)\s+([A-Za-z]{3}\s+[A-Za-z]{3}\s+\d{1,2}\s+\d{1,2}:\d{2}:\d{2}\s+\d{4})\s(.*)$/;

/** Parses the whole `ps` output (see PS_ARGS). Lines it cannot read are skipped. */
export function parsePsOutput(stdout: string, platform: NodeJS.Platform = process.platform): ProcInfo[] {
  const rows: PsRow[] = [];
  for (const line of stdout.split('\n')) {
    const m = ROW.exec(line);
    if (!m) continue;
    rows.push({
      pid: Number(m[1]),
      ppid: Number(m[2]),
      pgid: Number(m[3]),
      sess: m[4]!,
      tpgid: Number(m[5]),
      uid: Number(m[6]),
      tty: m[7]!,
      lstart: m[8]!.split(/\s+/).join(' '),
      rest: m[9]!.replace(/^ +/, ''),
    });
  }
  const split = splitCommArgs(rows.map((r) => r.rest));
  const linux = platform === 'linux';
  const ttyNrs = new Map<string, number>();
  const out: ProcInfo[] = rows.map((r, i) => {
    const [rawComm, args] = split[i]!;
    const comm = !linux && rawComm.includes('/') ? rawComm.slice(rawComm.lastIndexOf('/') + 1) || rawComm : rawComm;
    const ttyNr = ttyNumber(r.tty, linux, ttyNrs);
    return {
      pid: r.pid,
      ppid: r.ppid,
      pgid: r.pgid,
      sid: linux && /^\d+$/.test(r.sess) ? Number(r.sess) : 0,
      tpgid: r.tpgid > 0 ? r.tpgid : -1,
      ttyNr,
      startTime: r.lstart,
      comm,
      argv: argvOf(args, comm, rawComm),
      uid: r.uid,
    };
  });
  if (!linux) deriveSids(out, rows);
  return out;
}

/**
 * Finds the comm/args column boundary W (comm = rest[0, W), one space, args from W+1): the W that
 * the most rows agree on (space at W, non-space at W+1), smallest on a tie.
 */
export function splitCommArgs(rests: readonly string[]): Array<[string, string]> {
  const maxW = Math.min(
    256,
    rests.reduce((m, r) => Math.max(m, r.length), 0),
  );
  const fits = (r: string, w: number) => r.length > w + 1 && r.charCodeAt(w) === 32 && r.charCodeAt(w + 1) !== 32;
  let bestW = -1;
  let bestScore = 0;
  for (let w = 1; w < maxW; w++) {
    let score = 0;
    for (const r of rests) if (fits(r, w)) score += 1;
    if (score > bestScore) {
      bestScore = score;
      bestW = w;
    }
  }
  return rests.map((r): [string, string] => {
    if (bestW > 0 && fits(r, bestW)) return [r.slice(0, bestW).trimEnd(), r.slice(bestW + 1)];
    const gap = /\s{2,}/.exec(r) ?? /\s/.exec(r);
    if (!gap) return [r, ''];
    return [r.slice(0, gap.index), r.slice(gap.index + gap[0].length)];
  });
}

function argvOf(args: string, comm: string, rawComm: string): string[] {
  const a = args.trimEnd();
  if (a === '') return [];
  // No readable arguments: procps shows [comm] (or "[comm] <defunct>"), BSD (comm).
  for (const c of new Set([comm, rawComm])) {
    if (a === `[${c}]` || a === `[${c}] <defunct>` || a === `(${c})`) return [];
  }
  return a.split(' ');
}

function ttyNumber(tty: string, linux: boolean, cache: Map<string, number>): number {
  if (tty === '?' || tty === '??' || tty === '-' || tty === '') return 0;
  const hit = cache.get(tty);
  if (hit !== undefined) return hit;
  let nr = 0;
  try {
    const st = statSync(`/dev/${tty}`, { bigint: true, throwIfNoEntry: false });
    if (st) {
      if (linux) {
        // The kernel's tty_nr is new_encode_dev(): minor low byte, major, then the rest of minor.
        const { devMajor, devMinor } = splitDev(st.rdev);
        nr = (devMinor & 0xff) + devMajor * 0x100 + Math.floor(devMinor / 0x100) * 0x100000;
      } else {
        nr = Number(st.rdev);
      }
    }
  } catch {
    nr = 0;
  }
  cache.set(tty, nr);
  return nr;
}

/** Off Linux: sid = the topmost ancestor-or-self on the same controlling tty; 0 without a tty. */
function deriveSids(procs: ProcInfo[], rows: PsRow[]): void {
  const byPid = new Map<number, { proc: ProcInfo; tty: string }>();
  for (const [i, p] of procs.entries()) byPid.set(p.pid, { proc: p, tty: rows[i]!.tty });
  const noTty = (t: string) => t === '?' || t === '??' || t === '-' || t === '';
  for (const { proc, tty } of byPid.values()) {
    if (noTty(tty)) {
      proc.sid = 0;
      continue;
    }
    let top = proc;
    const seen = new Set<number>([proc.pid]);
    for (;;) {
      const parent = byPid.get(top.ppid);
      if (!parent || parent.tty !== tty || seen.has(parent.proc.pid)) break;
      seen.add(parent.proc.pid);
      top = parent.proc;
    }
    proc.sid = top.pid;
  }
}
