import { chmodSync, lstatSync, mkdirSync, readdirSync, type Stats, statSync } from 'node:fs';
import { join } from 'node:path';
import { fail, type Result } from '../../shared/errors';

/**
 * RIGDESK_HOME is the user's alone: the store (whose event log holds previews of what was sent),
 * the engine's token, the hooks' events, the window's layout. Someone else who may write there
 * could replace engine.json (and so receive every command the CLI sends) or the store itself. So
 * before an engine or a client uses the home: a home or entry another user owns or may write is
 * refused (HOME_UNSAFE, with the command that fixes it); one others may only read or enter is made
 * the user's only (0700 folders, 0600 files), which is also how Rigdesk makes what it creates.
 */

/** Mode bits that let the group or others write. */
const OTHERS_WRITE = 0o022;
/** Mode bits that let the group or others do anything. */
const OTHERS_ANY = 0o077;
/** How deep and how many entries are looked at: the home's own files and folders, and theirs. */
const MAX_DEPTH = 3;
const MAX_ENTRIES = 5_000;

export interface HomeFinding {
  path: string;
  /** The mode as octal, `0777`. */
  mode: string;
  owner: number;
  why: string;
}

export interface HomeInspection {
  /** Another user owns it or may write it: the home is refused. */
  unsafe: HomeFinding[];
  /** Others may read or enter it: made the user's only. */
  loose: { path: string; dir: boolean }[];
}

function octal(mode: number): string {
  return `0${(mode & 0o777).toString(8)}`;
}

function look(path: string, st: Stats, uid: number, out: HomeInspection): void {
  const found = (why: string) => out.unsafe.push({ path, mode: octal(st.mode), owner: st.uid, why });
  if (st.uid !== uid) found(`owned by uid ${st.uid}, not by this user (uid ${uid})`);
  else if (st.mode & OTHERS_WRITE) found(`others may write it (mode ${octal(st.mode)})`);
  else if (st.mode & OTHERS_ANY) out.loose.push({ path, dir: st.isDirectory() });
}

/** What in `home` is not the user's alone. A home that does not exist has nothing to say. */
export function inspectHome(home: string, uid: number): HomeInspection {
  const out: HomeInspection = { unsafe: [], loose: [] };
  let st: Stats;
  try {
    st = statSync(home);
  } catch {
    return out;
  }
  look(home, st, uid, out);
  let seen = 0;
  const walk = (dir: string, depth: number) => {
    let names: string[];
    try {
      names = readdirSync(dir);
    } catch {
      return;
    }
    for (const name of names) {
      if (++seen > MAX_ENTRIES) return;
      const p = join(dir, name);
      let e: Stats;
      try {
        e = lstatSync(p);
      } catch {
        continue; // gone as we looked
      }
      // A link's own mode means nothing; where it points is not the home's.
      if (e.isSymbolicLink()) continue;
      look(p, e, uid, out);
      if (e.isDirectory() && depth < MAX_DEPTH) walk(p, depth + 1);
    }
  };
  if (st.isDirectory()) walk(home, 1);
  return out;
}

/** The refusal for an unsafe home: the first finding, how many more, and the commands that fix them. */
export function homeUnsafe(home: string, unsafe: readonly HomeFinding[]) {
  const first = unsafe[0]!;
  const more = unsafe.length > 1 ? ` (and ${unsafe.length - 1} more)` : '';
  const foreign = unsafe.some((f) => f.why.startsWith('owned by'));
  return fail('HOME_UNSAFE', `RIGDESK_HOME ${home} is not yours alone: ${first.path} is ${first.why}${more}`, {
    hint: `${foreign ? `Check who put files there, then chown -R "$(id -un)" '${home}'; ` : ''}chmod -R go-rwx '${home}'. Keep the home on a disk only you use.`,
    evidence: { home, problems: unsafe.slice(0, 20) },
  });
}

/**
 * Before an engine (or a client of one) uses the home: made when `create` and missing (0700),
 * refused when unsafe, tightened when others may only read it. `uid` undefined (no POSIX ids) skips it.
 */
export function secureHome(
  home: string,
  uid: number | undefined,
  opts: { create?: boolean } = {},
): Result<{ tightened: string[] }> {
  if (opts.create) mkdirSync(home, { recursive: true, mode: 0o700 });
  if (uid === undefined) return { ok: true, tightened: [] };
  const found = inspectHome(home, uid);
  if (found.unsafe.length > 0) return homeUnsafe(home, found.unsafe);
  const tightened: string[] = [];
  for (const l of found.loose) {
    try {
      chmodSync(l.path, l.dir ? 0o700 : 0o600);
      tightened.push(l.path);
    } catch {
      /* gone as we looked */
    }
  }
  return { ok: true, tightened };
}
