import type { Exec } from '../deps';
import { splitDev } from '../proc/linux';
import type { EvidenceIO } from '../runtimes/types';
import { querySqliteCopy } from './sqlite-copy';

/**
 * Evidence files on a host, read for many seats in one round trip. The runtimes' adapters own
 * where a file lives (transcriptPath and friends take an EvidenceIO); Rigdesk does not repeat
 * that logic here. Instead an adapter runs against a replay IO: every path it asks about that has
 * no answer yet is recorded, and one script on the host answers every recorded probe of every
 * seat at once. The adapter then runs again on the answers. Claude needs one round (one
 * `exists`); a search through dated folders (Codex) needs one round per level, still independent
 * of the number of seats.
 */

export type ProbeOp = 'exists' | 'access' | 'list' | 'read' | 'tail' | 'fileid' | 'bytes' | 'aged';
export interface Probe {
  op: ProbeOp;
  path: string;
  n?: number;
  /** `bytes`: the file's stamp (size, mtime, inode) last read; an unchanged file answers 4 without its bytes. */
  stamp?: string;
}
/**
 * 0 answered, 3 absent, 4 unchanged since `stamp`, 5 present but unreadable (or the read failed
 * part way). A `bytes` answer is the file's stamp on a line, then its base64; an `aged` one, the
 * file's age in seconds by the host's own clock on a line, then its text.
 */
export interface ProbeAnswer {
  status: 0 | 3 | 4 | 5;
  data: string;
}

export const probeKey = (p: Probe): string => `${p.op}\0${p.path}\0${p.n ?? ''}`;

/**
 * Answers `op path n` triples in order. Each answer is a section `\x1eRD:<i>:<status>\n<data>`;
 * a read that fails after its header adds a second section for the same index, which wins. The
 * trailing `end` section proves the output was not cut short.
 */
export const PROBE_SCRIPT = [
  'i=0',
  'h() { printf "\\036RD:%s:%s\\n" "$i" "$1"; }',
  // A path that does not show is absent only when its nearest existing folder may be searched;
  // behind a folder the remote user cannot enter, it is unreadable, never "absent".
  'gone() { d=$1; while :; do case $d in */*) d=${d%/*}; [ -n "$d" ] || d=/ ;; *) d=. ;; esac; [ -e "$d" ] && break; done; if [ -d "$d" ] && [ -x "$d" ]; then h 3; else h 5; fi; }',
  // What is read must be a regular file: a FIFO would hold the round until its timeout, a device never end.
  'reg() { [ -f "$1" ] || { h 5; return 1; }; }',
  'while [ $# -ge 3 ]; do',
  '  op=$1; p=$2; n=$3; shift 3',
  '  if [ ! -e "$p" ]; then gone "$p"; else case $op in',
  '    exists) h 0 ;;',
  '    access) if [ -r "$p" ] && [ -x "$p" ]; then h 0; else h 5; fi ;;',
  '    list) if [ ! -d "$p" ]; then h 3; elif ( cd "$p" ) 2>/dev/null; then h 0; ( cd "$p" && for f in * .[!.]*; do [ -e "$f" ] && printf "%s\\0" "$f"; done ); else h 5; fi ;;',
  '    read) reg "$p" && { h 0; cat -- "$p" 2>/dev/null || h 5; } ;;',
  '    tail) reg "$p" && { h 0; tail -c "$n" -- "$p" 2>/dev/null || h 5; } ;;',
  '    fileid) h 0; stat -c "%d %i" -- "$p" 2>/dev/null || h 5 ;;',
  '    aged) reg "$p" && { h 0; printf "%s\\n" "$(( $(date +%s) - $(stat -c %Y -- "$p") ))"; cat -- "$p" 2>/dev/null || h 5; } ;;',
  '    bytes) reg "$p" && { st=$(stat -c "%s %y %i" -- "$p" 2>/dev/null); if [ -n "$st" ] && [ "$st" = "$n" ]; then h 4; else h 0; printf "%s\\n" "$st"; base64 -w0 -- "$p" 2>/dev/null || h 5; fi; } ;;',
  '    *) h 5 ;;',
  '  esac; fi',
  '  i=$((i+1))',
  'done',
  'i=end; h 0',
].join('\n');

export function probeArgs(probes: readonly Probe[]): string[] {
  return ['-c', PROBE_SCRIPT, 'rigdesk-probe', ...probes.flatMap((p) => [p.op, p.path, p.stamp ?? String(p.n ?? 0)])];
}

/** Throws when the output is cut short: the caller reads that as "could not read", never "absent". */
export function parseProbeAnswers(out: string, count: number): ProbeAnswer[] {
  const got = new Map<number, ProbeAnswer>();
  const re = /\x1eRD:(\d+|end):(\d)\n/g;
  let m: RegExpExecArray | null;
  let prev: { i: number; status: number; from: number } | undefined;
  let ended = false;
  const close = (to: number) => {
    if (!prev) return;
    const status = prev.status === 0 || prev.status === 3 || prev.status === 4 ? prev.status : 5;
    // A second header for the same index (the read failed after it began) replaces the first.
    got.set(prev.i, { status, data: status === 0 ? out.slice(prev.from, to) : '' });
  };
  while ((m = re.exec(out)) !== null) {
    close(m.index);
    if (m[1] === 'end') {
      ended = true;
      prev = undefined;
      break;
    }
    prev = { i: Number(m[1]), status: Number(m[2]), from: re.lastIndex };
  }
  if (!ended) throw new Error('evidence probe output is incomplete');
  const list: ProbeAnswer[] = [];
  for (let i = 0; i < count; i++) {
    const a = got.get(i);
    if (!a) throw new Error(`evidence probe gave no answer for probe ${i}`);
    list.push(a);
  }
  return list;
}

/** At most this many sibling files are asked for at once (the probe script's argv stays small). */
const SIBLINGS_MAX = 256;

/**
 * An adapter reads a listed folder's files one by one, and the first unanswered read ends its
 * pass: so a read (tail, file id) of one file of a folder already listed also asks the same of
 * every listed file with the same extension, and the whole folder is answered in one round trip
 * instead of one per file (Claude's sessions/*.json, Codex's lock files).
 */
function siblings(answers: ReadonlyMap<string, ProbeAnswer>, p: Probe): Probe[] {
  if (p.op !== 'read' && p.op !== 'tail' && p.op !== 'fileid') return [];
  const slash = p.path.lastIndexOf('/');
  if (slash <= 0) return [];
  const dir = p.path.slice(0, slash);
  const listed = answers.get(probeKey({ op: 'list', path: dir }));
  if (listed?.status !== 0) return [];
  const name = p.path.slice(slash + 1);
  const dot = name.lastIndexOf('.');
  const ext = dot > 0 ? name.slice(dot) : '';
  return listed.data
    .split('\0')
    .filter((f) => f && f !== name && (ext === '' || f.endsWith(ext)))
    .slice(0, SIBLINGS_MAX)
    .map((f) => ({ ...p, path: `${dir}/${f}` }));
}

/** Thrown inside an adapter when it asks about a path not probed yet; caught by the batch loop. */
export class NotProbedYet extends Error {}

function errno(code: string, path: string): Error {
  return Object.assign(new Error(`${code}: ${path}`), { code });
}

/** An EvidenceIO over answers already fetched; a question without an answer is recorded and thrown. */
export function replayIO(answers: ReadonlyMap<string, ProbeAnswer>, wanted: Map<string, Probe>): EvidenceIO {
  const ask = (p: Probe): ProbeAnswer => {
    const a = answers.get(probeKey(p));
    if (a) return a;
    wanted.set(probeKey(p), p);
    for (const s of siblings(answers, p)) if (!answers.has(probeKey(s))) wanted.set(probeKey(s), s);
    throw new NotProbedYet(`${p.op} ${p.path}: not read from the host yet`);
  };
  const body = (p: Probe): string => {
    const a = ask(p);
    if (a.status === 3) throw errno('ENOENT', p.path);
    if (a.status === 5) throw errno('EACCES', p.path);
    return a.data;
  };
  return {
    exists: (path) => {
      // Stricter than a local exists(): a path behind a folder that cannot be searched is an error.
      const a = ask({ op: 'exists', path });
      if (a.status === 5) throw errno('EACCES', path);
      return a.status === 0;
    },
    listDir: (path) => {
      const a = ask({ op: 'list', path });
      if (a.status === 3) return [];
      if (a.status === 5) throw errno('EACCES', path);
      return a.data.split('\0').filter(Boolean);
    },
    readFile: (path) => body({ op: 'read', path }),
    readTail: (path, bytes) => body({ op: 'tail', path, n: bytes }),
    fileId: (path) => {
      const a = ask({ op: 'fileid', path });
      if (a.status === 3) return undefined;
      if (a.status === 5) throw errno('EACCES', path);
      const [dev, ino] = a.data.trim().split(' ').map(Number);
      return { ...splitDev(dev!), inode: ino! };
    },
    querySqlite: (file, sql, params) => {
      // The log is read before the database, in the same round (see sqlite-copy.ts).
      const probes: Probe[] = [
        { op: 'bytes', path: `${file}-wal` },
        { op: 'bytes', path: file },
      ];
      const [wal, db] = probes.map((p) => answers.get(probeKey(p)));
      if (!wal || !db) {
        for (const p of probes) if (!answers.has(probeKey(p))) wanted.set(probeKey(p), p);
        throw new NotProbedYet(`bytes ${file}: not read from the host yet`);
      }
      if (db.status === 3) return undefined;
      if (db.status !== 0) throw errno('EACCES', file);
      if (wal.status !== 0 && wal.status !== 3) throw errno('EACCES', `${file}-wal`);
      const d = stampedBytes(db.data);
      const w = wal.status === 0 ? stampedBytes(wal.data) : undefined;
      return querySqliteCopy(`${d.stamp}|${w?.stamp ?? ''}`, d.bytes, w?.bytes, sql, params);
    },
  };
}

/** A `bytes` answer: the stamp line, then the file in base64. */
export function stampedBytes(data: string): { stamp: string; bytes: Buffer } {
  const nl = data.indexOf('\n');
  return { stamp: data.slice(0, nl), bytes: Buffer.from(data.slice(nl + 1), 'base64') };
}

/**
 * Keeps each `bytes` file last read from a host, so the next round asks with its stamp and an
 * unchanged file comes back as "unchanged" (4) instead of whole: `send` gives the probes to ask,
 * `take` turns the answers back into full ones.
 */
export class BytesCache {
  private readonly files = new Map<string, string>();
  send(probes: readonly Probe[]): Probe[] {
    return probes.map((p) => {
      const had = p.op === 'bytes' ? this.files.get(p.path) : undefined;
      return had ? { ...p, stamp: stampedBytes(had).stamp } : p;
    });
  }
  take(p: Probe, a: ProbeAnswer): ProbeAnswer {
    if (p.op !== 'bytes') return a;
    if (a.status === 4) {
      const had = this.files.get(p.path);
      return had === undefined ? { status: 5, data: '' } : { status: 0, data: had };
    }
    if (a.status === 0) this.files.set(p.path, a.data);
    else this.files.delete(p.path);
    return a;
  }
}

/**
 * Runs `ask` (one call per question, e.g. per seat) against the host until every question is
 * answered from probed facts: one exec per round for all questions together. `seed` probes go
 * into the first round (a home's readability, known to be needed). `unreachable` when the host
 * did not answer at all; a question still asking after `maxRounds` gets the error the caller maps.
 */
export async function answerOnHost<T>(
  exec: Exec,
  questions: ReadonlyMap<
    string,
    { seed?: Probe[]; ask: (io: EvidenceIO, answers: ReadonlyMap<string, ProbeAnswer>) => T }
  >,
  maxRounds = 6,
): Promise<
  | { ok: true; answers: Map<string, T | { error: string }>; roundTrips: number }
  | { ok: false; unreachable: boolean; reason: string }
> {
  const known = new Map<string, ProbeAnswer>();
  const out = new Map<string, T | { error: string }>();
  let pending = new Map([...questions].map(([k, q]) => [k, q]));
  const seeds = new Map<string, Probe>();
  for (const q of questions.values()) for (const p of q.seed ?? []) seeds.set(probeKey(p), p);
  let roundTrips = 0;
  let want = seeds;
  for (;;) {
    if (want.size > 0) {
      if (roundTrips >= maxRounds) break;
      const probes = [...want.values()];
      const r = await exec('sh', probeArgs(probes), { timeoutMs: 8_000 });
      roundTrips += 1;
      if (r.spawnError) return { ok: false, unreachable: true, reason: r.spawnError };
      let got: ProbeAnswer[];
      try {
        got = parseProbeAnswers(r.stdout, probes.length);
      } catch (e) {
        return {
          ok: false,
          unreachable: false,
          reason: `${(e as Error).message}${r.stderr ? `: ${r.stderr.trim().slice(0, 200)}` : ''}`,
        };
      }
      for (const [i, p] of probes.entries()) known.set(probeKey(p), got[i]!);
    }
    want = new Map();
    const next: typeof pending = new Map();
    for (const [k, q] of pending) {
      // Per question: an adapter that swallows the NotProbedYet it was thrown still asked, so an
      // answer given while a question was open is never taken (it could read "absent" for "not asked").
      const mine = new Map<string, Probe>();
      let answer: T | { error: string };
      try {
        answer = q.ask(replayIO(known, mine), known);
      } catch (e) {
        answer = { error: `${(e as NodeJS.ErrnoException).code ?? ''} ${(e as Error).message}`.trim() };
      }
      if (mine.size > 0) {
        next.set(k, q);
        for (const [pk, p] of mine) want.set(pk, p);
      } else out.set(k, answer);
    }
    pending = next;
    if (pending.size === 0) break;
  }
  for (const k of pending.keys())
    out.set(k, { error: `evidence on the host did not settle within ${maxRounds} round trips` });
  return { ok: true, answers: out, roundTrips };
}
