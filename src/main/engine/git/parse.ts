import { nulFields } from './run';

/**
 * Readers of git's NUL-separated output. A file name is data, whatever it holds (spaces, tabs,
 * newlines, a leading colon or dash): each reader takes path fields at the positions git puts
 * them, never by looking at what they contain.
 */

export type FileStatus = 'added' | 'modified' | 'deleted' | 'renamed';

export interface ChangedFile {
  path: string;
  /** The path before a rename. */
  from?: string;
  status: FileStatus;
  added: number;
  removed: number;
  /** Git counts no lines of a binary file: added and removed are 0. */
  binary?: true;
}

/** `git diff --raw --numstat -z -M`: the raw records first, then the numstat ones, same files. */
export function parseRawNumstat(out: string): ChangedFile[] {
  const f = nulFields(out);
  const raw = new Map<string, { status: FileStatus; from?: string }>();
  const counts = new Map<string, { added: number; removed: number; binary: boolean }>();
  const order: string[] = [];
  let i = 0;
  while (i < f.length) {
    const head = f[i++]!;
    if (head.startsWith(':')) {
      const letter = head.split(' ')[4]?.[0] ?? 'M';
      const two = letter === 'R' || letter === 'C';
      const from = two ? f[i++] : undefined;
      const path = f[i++];
      if (path === undefined) break;
      if (!raw.has(path)) order.push(path);
      raw.set(path, { status: statusOf(letter), ...(two && letter === 'R' ? { from } : {}) });
      continue;
    }
    const m = /^(-|\d+)\t(-|\d+)\t([\s\S]*)$/.exec(head);
    if (!m) continue;
    let path = m[3]!;
    if (path === '') {
      i++; // the rename's source; the raw record has it
      path = f[i++] ?? '';
    }
    const binary = m[1] === '-';
    counts.set(path, { added: binary ? 0 : Number(m[1]), removed: binary ? 0 : Number(m[2]), binary });
  }
  return order.map((path) => {
    const r = raw.get(path)!;
    const c = counts.get(path) ?? { added: 0, removed: 0, binary: false };
    return {
      path,
      ...(r.from !== undefined ? { from: r.from } : {}),
      status: r.status,
      added: c.added,
      removed: c.removed,
      ...(c.binary ? { binary: true as const } : {}),
    };
  });
}

function statusOf(letter: string): FileStatus {
  if (letter === 'A' || letter === 'C') return 'added';
  if (letter === 'D') return 'deleted';
  if (letter === 'R') return 'renamed';
  return 'modified';
}

/** One entry of `git status --porcelain=v2 -z`: what is not committed, and what kind. */
export interface StatusEntry {
  path: string;
  from?: string;
  kind: 'changed' | 'renamed' | 'unmerged' | 'untracked';
  /** The two-letter XY code (`.M`, `A.`, `??`). */
  xy: string;
}

export interface Status {
  /** `(initial)` on a branch with no commit yet. */
  oid?: string;
  /** The branch name, or `(detached)`. */
  head?: string;
  entries: StatusEntry[];
}

/** `git status --porcelain=v2 -z --branch`: ordinary (8 fields before the path), renamed (9), unmerged (10). */
export function parseStatusV2(out: string): Status {
  const f = nulFields(out);
  const st: Status = { entries: [] };
  for (let i = 0; i < f.length; i++) {
    const rec = f[i]!;
    const type = rec[0];
    if (type === '#') {
      const [, key, value] = /^# (\S+) (.*)$/.exec(rec) ?? [];
      if (key === 'branch.oid') st.oid = value;
      if (key === 'branch.head') st.head = value;
    } else if (type === '1' || type === 'u') {
      st.entries.push({
        path: afterFields(rec, type === '1' ? 8 : 10),
        kind: type === '1' ? 'changed' : 'unmerged',
        xy: rec.slice(2, 4),
      });
    } else if (type === '2') {
      st.entries.push({ path: afterFields(rec, 9), from: f[++i], kind: 'renamed', xy: rec.slice(2, 4) });
    } else if (type === '?') {
      st.entries.push({ path: rec.slice(2), kind: 'untracked', xy: '??' });
    }
  }
  return st;
}

/** The rest of a record after `n` space-separated fields: the path, spaces and all. */
function afterFields(rec: string, n: number): string {
  let at = 0;
  for (let k = 0; k < n; k++) {
    at = rec.indexOf(' ', at);
    if (at < 0) return '';
    at += 1;
  }
  return rec.slice(at);
}

export interface WorktreeEntry {
  path: string;
  head?: string;
  /** The full ref (`refs/heads/…`), absent when detached or bare. */
  branch?: string;
  bare?: true;
  detached?: true;
  locked?: true;
  /** Git's word for a worktree whose folder is gone. */
  prunable?: true;
}

/** `git worktree list --porcelain -z`: attribute fields, each record ended by an empty field. */
export function parseWorktreeList(out: string): WorktreeEntry[] {
  const list: WorktreeEntry[] = [];
  let cur: WorktreeEntry | undefined;
  for (const field of out.split('\0')) {
    if (field === '') {
      if (cur) list.push(cur);
      cur = undefined;
      continue;
    }
    const sp = field.indexOf(' ');
    const key = sp < 0 ? field : field.slice(0, sp);
    const value = sp < 0 ? '' : field.slice(sp + 1);
    if (key === 'worktree') cur = { path: value };
    else if (!cur) continue;
    else if (key === 'HEAD') cur.head = value;
    else if (key === 'branch') cur.branch = value;
    else if (key === 'bare') cur.bare = true;
    else if (key === 'detached') cur.detached = true;
    else if (key === 'locked') cur.locked = true;
    else if (key === 'prunable') cur.prunable = true;
  }
  if (cur) list.push(cur);
  return list;
}

/** `git merge-tree --write-tree -z --name-only --no-messages`: the tree, then each conflicted path once. */
export function parseMergeTree(out: string): { tree: string; conflicts: string[] } {
  const f = nulFields(out);
  const conflicts: string[] = [];
  for (const name of f.slice(1)) {
    if (name === '') break;
    if (!conflicts.includes(name)) conflicts.push(name);
  }
  return { tree: f[0] ?? '', conflicts };
}
