import { create } from 'zustand';
import type { Call, PsRow } from '../../../shared/contract';
import type { SeatChanges } from '../../../shared/contract/changes';
import type { Transport } from '../transport';

let port: Call | undefined;

/** The live port: the same transport, typed by the same contract, as every request of the window. */
export function setChangesTransport(t: Transport): void {
  port = (method, params) => t.request(method, params);
}

export function changesCall(): Call | undefined {
  return port;
}

interface ChangesState {
  /**
   * Per seat, the last `changes.list` read of a rig whose seats overlap: the paths of each
   * overlap, which the seats push does not carry. Absent for a rig with no overlap.
   */
  bySeat: Record<string, SeatChanges>;
}

export const useChanges = create<ChangesState>(() => ({ bySeat: {} }));

/** Reads every seat of a rig (with the overlaps between them) into the store. */
export async function loadRig(rig: string): Promise<void> {
  const r = await port?.('changes.list', { rig });
  if (!r?.ok) return;
  useChanges.setState((s) => {
    const bySeat = withoutRig(s.bySeat, rig);
    for (const seat of r.seats) bySeat[seat.seat] = seat;
    return { bySeat };
  });
}

/** Forgets a rig's figures: its overlaps ended (the seats push says no seat of it overlaps now). */
export function dropRig(rig: string): void {
  useChanges.setState((s) => ({ bySeat: withoutRig(s.bySeat, rig) }));
}

function withoutRig(bySeat: Record<string, SeatChanges>, rig: string): Record<string, SeatChanges> {
  return Object.fromEntries(Object.entries(bySeat).filter(([, c]) => c.rig !== rig));
}

/**
 * Per rig, what its overlaps look like in the seats push: each overlapping seat with the seats it
 * overlaps and its totals (a new write to an overlapping seat may change the shared paths). A rig
 * whose text changes is read again; one with no overlap has none.
 */
export function overlapKeys(seats: Record<string, PsRow>): Map<string, string> {
  const byRig = new Map<string, string[]>();
  for (const row of Object.values(seats)) {
    const c = row.changes;
    if (!c?.overlapsWith?.length) continue;
    const line = `${row.seat}>${[...c.overlapsWith].sort().join(',')}:${c.files}/${c.added}/${c.removed}`;
    byRig.set(row.rig, [...(byRig.get(row.rig) ?? []), line]);
  }
  return new Map([...byRig].map(([rig, lines]) => [rig, lines.sort().join('\n')]));
}

/** The pairs of seats whose changes overlap, once each (a|b with a < b), with their paths. */
export function overlapPairs(bySeat: Record<string, SeatChanges>): { a: string; b: string; paths: string[] }[] {
  const out = new Map<string, { a: string; b: string; paths: string[] }>();
  for (const s of Object.values(bySeat))
    for (const o of s.overlaps) {
      const [a, b] = [s.seat, o.seat].sort() as [string, string];
      if (!out.has(`${a}|${b}`)) out.set(`${a}|${b}`, { a, b, paths: o.paths });
    }
  return [...out.values()];
}
