import type { z } from 'zod';
import { create } from 'zustand';
import type { CHANGES_ANSWERS, CHANGES_REQUESTS, SeatChanges } from '../../../shared/contract/changes';
import type { Result } from '../../../shared/errors';
import type { Transport } from '../transport';

type ChangesMethod = keyof typeof CHANGES_REQUESTS;
/** The work loop's requests, typed from the contract like every other call of the window. */
export type ChangesCall = <M extends ChangesMethod>(
  method: M,
  params: z.input<(typeof CHANGES_REQUESTS)[M]>,
) => Promise<Result<z.output<(typeof CHANGES_ANSWERS)[M]>>>;

let port: ChangesCall | undefined;

/** The live port: the same transport as every request (IPC or the WebSocket). */
export function setChangesTransport(t: Transport): void {
  // @ts-expect-error until the engine side joins CHANGES_REQUESTS to CLIENT_REQUESTS; then this line goes
  port = (method, params) => t.request(method, params);
}

export function changesCall(): ChangesCall | undefined {
  return port;
}

interface ChangesState {
  /** Per seat, the last figures read (from `changes.list` by rig). */
  bySeat: Record<string, SeatChanges>;
}

export const useChanges = create<ChangesState>(() => ({ bySeat: {} }));

/** Reads every seat of a rig (with the overlaps between them) into the store. */
export async function loadRig(rig: string): Promise<void> {
  const r = await port?.('changes.list', { rig });
  if (!r?.ok) return;
  useChanges.setState((s) => {
    const bySeat = { ...s.bySeat };
    for (const seat of r.seats) bySeat[seat.seat] = seat;
    return { bySeat };
  });
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
