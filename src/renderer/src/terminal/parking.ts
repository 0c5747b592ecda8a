/**
 * Terminals off screen are parked: their live viewer is closed (no pty, no xterm, no GPU context)
 * and a serialized snapshot is kept, so coming back shows the last screen at once while tmux
 * redraws the live one. Bounded, oldest dropped first.
 */
const MAX_PARKED = 64;
const parked = new Map<string, string>();

export function park(seat: string, snapshot: string): void {
  parked.delete(seat);
  parked.set(seat, snapshot);
  if (parked.size > MAX_PARKED) parked.delete(parked.keys().next().value!);
}

export function unpark(seat: string): string | undefined {
  const s = parked.get(seat);
  parked.delete(seat);
  return s;
}
