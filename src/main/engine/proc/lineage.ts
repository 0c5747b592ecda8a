import type { ProcInfo, ProcSnapshot } from './types';

/**
 * Pure walks over one ProcSnapshot. Nothing here reads the system: the snapshot is the only truth,
 * so a tree that changed after it was taken is seen as it was then. Every walk is cycle-safe (a
 * corrupt or racing table can claim a process is its own ancestor).
 */

/** Builds a snapshot (with the pid -> children index) from a list of processes. */
export function buildSnapshot(procs: Iterable<ProcInfo>, takenAt: number): ProcSnapshot {
  const byPid = new Map<number, ProcInfo>();
  for (const p of procs) byPid.set(p.pid, p);
  const children = new Map<number, number[]>();
  for (const p of byPid.values()) {
    if (p.ppid === p.pid) continue;
    const list = children.get(p.ppid);
    if (list) list.push(p.pid);
    else children.set(p.ppid, [p.pid]);
  }
  return { takenAt, byPid, children };
}

/** All processes below `pid`, breadth-first (children, then grandchildren, ...); excludes `pid`. */
export function descendants(snap: ProcSnapshot, pid: number): ProcInfo[] {
  return walkDown(snap, pid).map((d) => d.proc);
}

/** Parent, grandparent, ... up to the root (nearest first); excludes `pid`. Empty when `pid` is unknown. */
export function ancestors(snap: ProcSnapshot, pid: number): ProcInfo[] {
  const out: ProcInfo[] = [];
  const seen = new Set<number>([pid]);
  let cur = snap.byPid.get(pid);
  while (cur) {
    const parentPid = cur.ppid;
    if (seen.has(parentPid)) break;
    seen.add(parentPid);
    const parent = snap.byPid.get(parentPid);
    if (!parent) break;
    out.push(parent);
    cur = parent;
  }
  return out;
}

/**
 * What the pane is running in the foreground: among the pane process and its descendants, those in
 * the terminal's foreground process group (pgid == the pane process's tpgid); the deepest wins,
 * then the newest. When none is in that group (no controlling tty, or the group lies outside the
 * tree), the deepest (then newest) descendant. With no descendants, the pane process itself.
 * Undefined only when `panePid` is not in the snapshot.
 */
export function foregroundOf(snap: ProcSnapshot, panePid: number): ProcInfo | undefined {
  const pane = snap.byPid.get(panePid);
  if (!pane) return undefined;
  const tree = [{ proc: pane, depth: 0 }, ...walkDown(snap, panePid)];
  if (pane.tpgid > 0) {
    const fg = pickDeepestNewest(tree.filter((d) => d.proc.pgid === pane.tpgid));
    if (fg) return fg;
  }
  return pickDeepestNewest(tree) ?? pane;
}

/** pid + startTime is a process identity; a recycled pid has another start time. */
export function sameProcess(a: { pid: number; startTime: string }, b: { pid: number; startTime: string }): boolean {
  return a.pid === b.pid && a.startTime === b.startTime;
}

/**
 * Orders two opaque start times: numerically when both are tick counts (Linux), by date when both
 * parse as dates (`ps` lstart), else 0. Positive when `a` started later.
 */
export function compareStartTime(a: string, b: string): number {
  if (/^\d+$/.test(a) && /^\d+$/.test(b)) {
    const x = BigInt(a);
    const y = BigInt(b);
    return x === y ? 0 : x > y ? 1 : -1;
  }
  const x = Date.parse(a);
  const y = Date.parse(b);
  if (Number.isNaN(x) || Number.isNaN(y)) return 0;
  return x - y;
}

interface Placed {
  proc: ProcInfo;
  depth: number;
}

function walkDown(snap: ProcSnapshot, pid: number): Placed[] {
  const out: Placed[] = [];
  const seen = new Set<number>([pid]);
  let frontier = [pid];
  let depth = 0;
  while (frontier.length > 0) {
    depth += 1;
    const next: number[] = [];
    for (const p of frontier) {
      for (const c of snap.children.get(p) ?? []) {
        if (seen.has(c)) continue;
        seen.add(c);
        const proc = snap.byPid.get(c);
        if (!proc) continue;
        out.push({ proc, depth });
        next.push(c);
      }
    }
    frontier = next;
  }
  return out;
}

function pickDeepestNewest(list: Placed[]): ProcInfo | undefined {
  let best: Placed | undefined;
  for (const d of list) {
    if (!best || d.depth > best.depth) {
      best = d;
      continue;
    }
    if (d.depth < best.depth) continue;
    const byStart = compareStartTime(d.proc.startTime, best.proc.startTime);
    // Same start tick (or unordered start times): the higher pid is the later fork, barring wrap-around.
    if (byStart > 0 || (byStart === 0 && d.proc.pid > best.proc.pid)) best = d;
  }
  return best?.proc;
}
