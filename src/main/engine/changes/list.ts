import type { ChangeTotals, SeatChanges } from '../../../shared/contract/changes';
import type { SeatRow } from '../store';
import type { ChangesBook, SeatLook } from './book';
import { computeOverlaps, type SeatFiles } from './overlaps';

/**
 * Each seat's changes as the contract carries them, with the seats it shares a working tree with
 * and the seats of its rig whose changes touch the same paths in another tree.
 */
export async function listChanges(book: ChangesBook, seats: readonly SeatRow[]): Promise<SeatChanges[]> {
  const looks = await Promise.all(seats.map((s) => book.look(s)));
  return shape(seats, looks);
}

/** The same from what the book keeps, without git work (ps, the window's pushes). */
export function keptChanges(book: ChangesBook, seats: readonly SeatRow[]): Map<string, SeatChanges> {
  const looks = seats.map((s) => book.kept(s));
  const out = new Map<string, SeatChanges>();
  shape(seats, looks).forEach((c, i) => {
    if (looks[i]) out.set(c.seat, c);
  });
  return out;
}

export function totals(c: Pick<SeatChanges, 'files'>): ChangeTotals {
  let added = 0;
  let removed = 0;
  for (const f of c.files) {
    added += f.added;
    removed += f.removed;
  }
  return { files: c.files.length, added, removed };
}

function shape(seats: readonly SeatRow[], looks: readonly (SeatLook | undefined)[]): SeatChanges[] {
  const forOverlap: SeatFiles[] = [];
  seats.forEach((s, i) => {
    const l = looks[i];
    if (l && 'tree' in l)
      forOverlap.push({
        seat: s.seat,
        rig: s.rig,
        repo: l.tree.repoKey,
        tree: l.tree.key,
        paths: (l.figures?.files ?? []).map((f) => f.path),
      });
  });
  const over = computeOverlaps(forOverlap);
  return seats.map((s, i) => {
    const l = looks[i];
    const o = over.get(s.seat);
    const tree = l && 'tree' in l ? l.tree : undefined;
    const figures = l && 'tree' in l ? l.figures : undefined;
    return {
      seat: s.seat,
      rig: s.rig,
      ...(s.host !== 'local' ? { host: s.host } : {}),
      ...(s.worktree ? { worktree: s.worktree.path, branch: s.worktree.branch, base: s.worktree.base } : {}),
      ...(tree ? { tree: tree.top } : {}),
      sharedWith: o?.sharedWith ?? [],
      files: figures?.files ?? [],
      overlaps: o?.overlaps ?? [],
      ...(figures ? { readAt: figures.readAt } : {}),
      ...(l?.problem ? { problem: l.problem } : {}),
    };
  });
}
