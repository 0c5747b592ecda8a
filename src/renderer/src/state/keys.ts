/**
 * The app's own chords. In a focused terminal every other key goes to the pane; these are taken
 * by the window first (and listed by `?`). Chosen off what a shell or an agent's TUI reads (Ctrl+F,
 * Ctrl+D, Escape stay the pane's) and off what browsers keep for themselves.
 */
export type ChordId =
  | 'palette'
  | 'jump'
  | 'slot'
  | 'find'
  | 'approve'
  | 'deny'
  | 'decisions'
  | 'details'
  | 'rail'
  | 'magnify'
  | 'pin'
  | 'layout'
  | 'view';

export interface Chord {
  id: ChordId;
  keys: string;
  what: string;
}

export const CHORDS: readonly Chord[] = [
  { id: 'palette', keys: 'Ctrl+K (⌘K on macOS)', what: 'Command palette: seats, actions, layouts' },
  { id: 'jump', keys: 'Ctrl+J', what: 'Jump to the seat that has waited longest for you' },
  { id: 'slot', keys: 'Ctrl+1 … Ctrl+9', what: 'Focus grid slot 1 … 9' },
  { id: 'layout', keys: 'Ctrl+Shift+1 … 4', what: 'Layout 1, 1x2, 2x2, 3x3' },
  { id: 'approve', keys: 'Ctrl+Shift+Enter', what: 'Approve the focused decision' },
  { id: 'deny', keys: 'Ctrl+Shift+Backspace', what: 'Deny the focused decision' },
  { id: 'find', keys: 'Ctrl+Shift+F', what: 'Find in the focused terminal' },
  { id: 'magnify', keys: 'Ctrl+Shift+M', what: 'Magnify the focused pane, or put it back' },
  { id: 'pin', keys: 'Ctrl+Shift+P', what: 'Pin or unpin the focused pane' },
  { id: 'decisions', keys: 'Ctrl+Shift+D', what: 'Decisions panel' },
  { id: 'details', keys: 'Ctrl+Shift+E', what: 'Seat details panel' },
  { id: 'rail', keys: 'Ctrl+Shift+B', what: 'Show or hide the seat rail' },
  { id: 'view', keys: 'Ctrl+Shift+G', what: 'Next centre view: grid, topology, timeline, restore review, usage' },
];

/** Outside a terminal or a text field: */
export const PLAIN_KEYS: readonly { keys: string; what: string }[] = [
  { keys: '?', what: 'Show these keys' },
  {
    keys: 'Escape',
    what: 'Close what is open (or else dismiss the notes) and give the focus back to the focused pane',
  },
  { keys: 'A / D', what: 'Approve / deny the decision card that has the focus' },
  { keys: '↑ ↓', what: "Move between seats in the rail; Enter opens one, C its Changes, U its rig's Usage" },
  { keys: 'T / C, S / P', what: 'In the Usage view: tokens / cost, lines per seat / per pod' },
  { keys: 'U / S, J / K', what: 'In a Changes view: unified / side by side, next / previous file' },
  { keys: '← → ↑ ↓', what: 'In the topology: move between seats; Enter opens one in the grid, M its menu' },
];

export type ChordHit =
  | { id: Exclude<ChordId, 'slot' | 'layout'> }
  | { id: 'slot'; n: number }
  | { id: 'layout'; n: number };

const mod = (e: KeyboardEvent) => e.ctrlKey || e.metaKey;

/** Which chord a key event is, if any (physical keys, so Shift+1 is still "1"). */
export function chordOf(e: KeyboardEvent): ChordHit | undefined {
  if (!mod(e) || e.altKey) return undefined;
  const digit = /^Digit([1-9])$/.exec(e.code)?.[1];
  if (!e.shiftKey) {
    if (e.code === 'KeyK') return { id: 'palette' };
    if (e.code === 'KeyJ') return { id: 'jump' };
    if (digit) return { id: 'slot', n: Number(digit) };
    return undefined;
  }
  if (digit && Number(digit) <= 4) return { id: 'layout', n: Number(digit) };
  const byCode: Record<string, Exclude<ChordId, 'slot' | 'layout'>> = {
    Enter: 'approve',
    NumpadEnter: 'approve',
    Backspace: 'deny',
    KeyF: 'find',
    KeyM: 'magnify',
    KeyP: 'pin',
    KeyD: 'decisions',
    KeyE: 'details',
    KeyB: 'rail',
    KeyG: 'view',
  };
  const id = byCode[e.code];
  return id ? { id } : undefined;
}
