import { type PsRow, psRow } from '../../src/shared/contract';

/** A running, idle seat's `ps` row as the contract reads it, with `over` on top (pure tests of the window's rules). */
export function psRowOf(seat: string, over: Partial<PsRow> = {}): PsRow {
  return psRow.parse({
    seat,
    rig: seat.split('@')[1] ?? 'r',
    pod: 'p',
    member: seat.split('@')[0],
    runtime: 'claude-code',
    cwd: '/',
    state: 'running',
    activity: 'idle',
    stoppedOnPurpose: false,
    ...over,
  });
}
