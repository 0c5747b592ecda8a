import { GRID_SLOTS, type Grid, type WindowLayout } from '../../../shared/contract/workspace';

/**
 * The grid's rules, pure (a test drives them without a window): slots hold seats, pinned slots
 * keep theirs, one slot has the focus. Every function returns a new layout.
 */
export const DEFAULT_LAYOUT: WindowLayout = {
  grid: '2x2',
  slots: [],
  pinned: [],
  focus: 0,
  magnified: false,
  rail: true,
  panel: 'decisions',
};

export const slotCount = (l: WindowLayout): number => GRID_SLOTS[l.grid];

/** The seats the grid shows now, slot by slot (undefined: an empty slot). */
export function visibleSlots(l: WindowLayout): (string | undefined)[] {
  return Array.from({ length: slotCount(l) }, (_, i) => l.slots[i] ?? undefined);
}

export function slotOf(l: WindowLayout, seat: string): number {
  return visibleSlots(l).indexOf(seat);
}

function withSlot(l: WindowLayout, i: number, seat: string | null, pinned: boolean): WindowLayout {
  const slots = [...l.slots];
  const pins = [...l.pinned];
  while (slots.length <= i) slots.push(null);
  while (pins.length <= i) pins.push(false);
  slots[i] = seat;
  pins[i] = pinned;
  return { ...l, slots, pinned: pins };
}

export function setGrid(l: WindowLayout, grid: Grid): WindowLayout {
  const n = GRID_SLOTS[grid];
  return { ...l, grid, focus: Math.min(l.focus, n - 1), magnified: n === 1 ? false : l.magnified };
}

/**
 * Opens a seat: where it is visible it gets the focus; otherwise it goes into the focused slot
 * when that slot is not pinned, else into the first free or unpinned slot, else (all pinned) the
 * focused one after all: the person asked for this seat.
 */
export function openSeat(l: WindowLayout, seat: string, opts: { fill?: boolean } = {}): WindowLayout {
  const at = slotOf(l, seat);
  if (at >= 0) return { ...l, focus: at };
  const n = slotCount(l);
  const vis = visibleSlots(l);
  const pinnedAt = (i: number) => l.pinned[i] === true && vis[i] !== undefined;
  let target = l.focus;
  // From the rail, a seat fills an empty slot before it replaces the focused one.
  const empty = vis.indexOf(undefined);
  if (opts.fill && vis[target] !== undefined && empty >= 0) target = empty;
  else if (pinnedAt(target)) {
    const free = vis.indexOf(undefined);
    const unpinned = Array.from({ length: n }, (_, i) => i).find((i) => !pinnedAt(i));
    target = free >= 0 ? free : (unpinned ?? l.focus);
  }
  return { ...withSlot(l, target, seat, false), focus: target };
}

/** Pins a seat to a slot: the focused one by default, or where it already is. */
export function pinSeat(l: WindowLayout, seat: string): WindowLayout {
  const at = slotOf(l, seat);
  const opened = at >= 0 ? { ...l, focus: at } : openSeat(l, seat);
  return withSlot(opened, opened.focus, seat, true);
}

export function togglePin(l: WindowLayout, slot: number): WindowLayout {
  const seat = visibleSlots(l)[slot];
  if (!seat) return l;
  return withSlot(l, slot, seat, !(l.pinned[slot] === true));
}

export function clearSlot(l: WindowLayout, slot: number): WindowLayout {
  return { ...withSlot(l, slot, null, false), magnified: l.focus === slot ? false : l.magnified };
}

export function focusSlot(l: WindowLayout, slot: number): WindowLayout {
  return slot >= 0 && slot < slotCount(l) ? { ...l, focus: slot } : l;
}

/** A seat that is no longer recorded leaves its slot. */
export function dropUnknown(l: WindowLayout, known: (seat: string) => boolean): WindowLayout {
  let out = l;
  l.slots.forEach((s, i) => {
    if (s && !known(s)) out = withSlot(out, i, null, false);
  });
  return out;
}

/**
 * The first screen of a window whose layout was never saved: its empty slots take the seats not
 * shown yet, in the order given (the attention order), so a newcomer sees seats, not empty slots.
 * A slot that holds a seat keeps it.
 */
export function fillEmpty(l: WindowLayout, ordered: readonly string[]): WindowLayout {
  const vis = visibleSlots(l);
  const queue = ordered.filter((s) => !vis.includes(s));
  let out = l;
  vis.forEach((s, i) => {
    const next = s === undefined ? queue.shift() : undefined;
    if (next) out = withSlot(out, i, next, false);
  });
  return out;
}
