import { liveFs } from '../deps';
import { dirname, isAbsolute, join, relative, resolve } from 'node:path';
import { UUID_RE, type EvidenceIO, type LaunchFiles } from './types';

/**
 * Where omp (oh-my-pi 18.2.3) keeps a conversation, read from its own code (session-paths.ts,
 * session-listing.ts, session-title-slot.ts) and pinned by test/agents/omp-real.test.ts.
 *
 * `$PI_CODING_AGENT_DIR/sessions/<folder>/<ISO timestamp, ":" and "." → "-">_<id>.jsonl`. The
 * folder names the cwd (its real path) three ways: under the process's HOME it is `-` plus the
 * relative path (`-` alone for HOME itself), under its temp root (TMPDIR, else /tmp) `-tmp-` plus
 * the relative path, and elsewhere Pi's `--<path minus its leading "/", "/" → "-">--`; "/", "\"
 * and ":" become "-". The file's first line is a fixed 256-byte title slot
 * (`{"type":"title","v":1,"title":"","updatedAt":…,"pad":"   …"}` and a newline), rewritten in
 * place; the second the session header `{"type":"session","version":3,"id":…,"timestamp":…,"cwd":…}`.
 * A file is written only with the first reply, but omp opens one that holds just those two lines
 * as a session of that id (how Rigdesk names a fresh seat's conversation).
 *
 * `omp --resume <arg>` takes an id, an id prefix or a file name prefix (the cwd's folder first,
 * then every folder), or a path (anything with "/" or ending in .jsonl), which it opens as given.
 */
export const OMP_LAYOUT = {
  sessionsDir: 'sessions',
  titleSlotBytes: 256,
  headerVersion: 3,
  fileFor: (isoTimestamp: string, id: string): string => `${isoTimestamp.replace(/[:.]/g, '-')}_${id}.jsonl`,
  idFromFile: (name: string): string | undefined => /_([^_/]+)\.jsonl$/.exec(name)?.[1],
} as const;

/**
 * `-`, `-tmp` and the absolute form, exactly as omp names a cwd's session folder. `cwd` is a real
 * path; `real` resolves HOME and the temp root as omp does (on the machine the seat runs on).
 */
export function ompFolderFor(
  cwd: string,
  home: string,
  tmp: string,
  real: (path: string) => string = realOrSame,
): string {
  const under = (root: string): string | undefined => {
    const r = relative(real(root), cwd);
    return r === '' || (!r.startsWith('..') && !isAbsolute(r)) ? r : undefined;
  };
  const encode = (prefix: string, rel: string): string => {
    const e = rel.replace(/[/\\:]/g, '-');
    if (!e) return prefix;
    return prefix.endsWith('-') ? `${prefix}${e}` : `${prefix}-${e}`;
  };
  const inHome = under(home);
  if (inHome !== undefined) return encode('-', inHome);
  const inTmp = under(tmp);
  if (inTmp !== undefined) return encode('-tmp', inTmp);
  return `--${cwd.replace(/^[/\\]/, '').replace(/[/\\:]/g, '-')}--`;
}

/** The temp root as Bun's os.tmpdir() gives it: TMPDIR, TMP or TEMP, else /tmp, no trailing "/". */
export function ompTempRoot(env: Readonly<Record<string, string | undefined>>): string {
  const t = env.TMPDIR || env.TMP || env.TEMP || '/tmp';
  return t.length > 1 ? t.replace(/\/+$/, '') : t;
}

export function realOrSame(p: string): string {
  try {
    return liveFs.realpathSync(p);
  } catch {
    return resolve(p);
  }
}

/** This machine's files, for a launch that runs here (the same steps omp's own writer takes). */
export const LOCAL_OMP_FILES: LaunchFiles = {
  realPath: realOrSame,
  createNew(path, text) {
    liveFs.mkdirSync(dirname(path), { recursive: true });
    liveFs.writeFileSync(path, text, { flag: 'wx' });
  },
};

/**
 * Every session file of a home, as `folder/name` pairs ([] when there is none yet). Every folder is
 * asked before a failure is thrown, so a host's evidence round lists them all in one round trip.
 */
function sessionFiles(home: string, io: EvidenceIO): { dir: string; name: string }[] {
  const root = join(home, OMP_LAYOUT.sessionsDir);
  let failed: unknown;
  const out = io.listDir(root).flatMap((folder) => {
    const dir = join(root, folder);
    let names: string[];
    try {
      names = io.listDir(dir);
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code !== 'ENOTDIR') failed ??= e;
      return [];
    }
    return names.filter((n) => n.endsWith('.jsonl')).map((name) => ({ dir, name }));
  });
  if (failed !== undefined) throw failed;
  return out;
}

/**
 * A conversation's file, by the id in its name. omp itself looks in every folder of the home (a
 * resume from another cwd finds it too), so this does too.
 */
export function findOmpSession(home: string, id: string, io: EvidenceIO): string | undefined {
  const hit = sessionFiles(home, io).find((f) => OMP_LAYOUT.idFromFile(f.name) === id);
  return hit ? join(hit.dir, hit.name) : undefined;
}

/** The id a session file's header names (after its title slot), if its text starts with one. */
export function ompHeaderId(text: string): string | undefined {
  for (const line of text.split('\n', 3)) {
    try {
      const e = JSON.parse(line) as { type?: unknown; id?: unknown };
      if (e.type === 'title') continue;
      return e.type === 'session' && typeof e.id === 'string' && e.id !== '' ? e.id : undefined;
    } catch {
      return undefined;
    }
  }
  return undefined;
}

/**
 * The conversations `omp --resume <arg>` may open, read the way omp reads the argument: a path's
 * header, else every session whose id or file name starts with it (omp prefers the cwd's folder,
 * which is not known here without the process's HOME: every match is a candidate). An argument
 * that matches nothing names nothing (omp itself then fails with "not found").
 */
export function ompResumeCandidates(home: string, arg: string, cwd: string | undefined, io: EvidenceIO): string[] {
  if (arg.includes('/') || arg.includes('\\') || arg.endsWith('.jsonl')) {
    const path = isAbsolute(arg) ? arg : cwd ? join(cwd, arg) : undefined;
    if (!path) return [];
    try {
      const id = ompHeaderId(io.readFile(path));
      return id ? [id] : [];
    } catch {
      return [];
    }
  }
  const want = arg.toLowerCase();
  const ids = new Set<string>();
  for (const f of sessionFiles(home, io)) {
    const id = OMP_LAYOUT.idFromFile(f.name);
    if (!id) continue;
    const name = f.name.slice(0, -'.jsonl'.length).toLowerCase();
    if (id.toLowerCase().startsWith(want) || name.startsWith(want)) ids.add(id);
  }
  return [...ids];
}

/** omp's fixed-width title slot: exactly 256 bytes with its newline. */
export function ompTitleSlot(isoTimestamp: string): string {
  const bare = JSON.stringify({ type: 'title', v: 1, title: '', updatedAt: isoTimestamp, pad: '' });
  const pad = OMP_LAYOUT.titleSlotBytes - 1 - Buffer.byteLength(bare);
  return `${JSON.stringify({ type: 'title', v: 1, title: '', updatedAt: isoTimestamp, pad: ' '.repeat(pad) })}\n`;
}

/**
 * Writes a new session file holding only the title slot and a header naming `id`, in the folder
 * omp would use for `cwd` under the process's HOME and temp root. Never overwrites. `files` is
 * where the seat runs: this machine by default, or its host (paths resolved and written there).
 */
export function writeOmpSession(input: {
  home: string;
  cwd: string;
  id: string;
  userHome: string;
  tmp: string;
  now: Date;
  files?: LaunchFiles;
}): string {
  const files = input.files ?? LOCAL_OMP_FILES;
  const cwd = files.realPath(input.cwd);
  const at = input.now.toISOString();
  const folder = ompFolderFor(cwd, input.userHome, input.tmp, (p) => files.realPath(p));
  const path = join(input.home, OMP_LAYOUT.sessionsDir, folder, OMP_LAYOUT.fileFor(at, input.id));
  const header = JSON.stringify({
    type: 'session',
    version: OMP_LAYOUT.headerVersion,
    id: input.id,
    timestamp: at,
    cwd,
  });
  files.createNew(path, `${ompTitleSlot(at)}${header}\n`);
  return path;
}

/** A full omp session id (a time-ordered UUID, v7); a shorter argument is a prefix. */
export const isOmpId = (v: string): boolean => UUID_RE.test(v);
