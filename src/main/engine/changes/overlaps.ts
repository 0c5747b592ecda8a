/**
 * Overlaps before they are conflicts: two seats of one rig, in different working trees of the
 * same repository, that changed the same path. Seats in one working tree are not an overlap but
 * a shared tree: their changes cannot be told apart, which the rail flags as a risk of its own.
 */

export interface SeatFiles {
  seat: string;
  rig: string;
  /** The repository, as one key across hosts (host and its common git folder). */
  repo: string;
  /** The working tree, as one key across hosts (host and its top folder). */
  tree: string;
  paths: readonly string[];
}

export interface SeatOverlaps {
  overlaps: { seat: string; paths: string[] }[];
  sharedWith: string[];
}

export function computeOverlaps(seats: readonly SeatFiles[]): Map<string, SeatOverlaps> {
  const out = new Map<string, SeatOverlaps>();
  for (const s of seats) out.set(s.seat, { overlaps: [], sharedWith: [] });
  const sets = new Map(seats.map((s) => [s.seat, new Set(s.paths)]));
  for (let i = 0; i < seats.length; i++) {
    for (let j = i + 1; j < seats.length; j++) {
      const a = seats[i]!;
      const b = seats[j]!;
      if (a.rig !== b.rig || a.repo !== b.repo) continue;
      if (a.tree === b.tree) {
        out.get(a.seat)!.sharedWith.push(b.seat);
        out.get(b.seat)!.sharedWith.push(a.seat);
        continue;
      }
      const bs = sets.get(b.seat)!;
      const common = [...sets.get(a.seat)!].filter((p) => bs.has(p)).sort();
      if (common.length === 0) continue;
      out.get(a.seat)!.overlaps.push({ seat: b.seat, paths: common });
      out.get(b.seat)!.overlaps.push({ seat: a.seat, paths: common });
    }
  }
  return out;
}

/** Each overlapping pair once (a < b), for the topology's edges. */
export function overlapPairs(all: Map<string, SeatOverlaps>): { from: string; to: string; paths: string[] }[] {
  const pairs: { from: string; to: string; paths: string[] }[] = [];
  for (const [seat, o] of all)
    for (const v of o.overlaps) if (seat < v.seat) pairs.push({ from: seat, to: v.seat, paths: v.paths });
  return pairs;
}
