import { describe, expect, it } from 'vitest';
import {
  DEFAULT_LAYOUT,
  dropUnknown,
  openSeat,
  pinSeat,
  setGrid,
  togglePin,
  visibleSlots,
} from '../../src/renderer/src/state/grid';
import {
  attentionOrder,
  attentionRank,
  hasEvidence,
  notRunningLine,
  since,
  stateWord,
} from '../../src/renderer/src/state/seat-state';
import type { PsRow } from '../../src/shared/contract';

const l0 = { ...DEFAULT_LAYOUT, grid: '2x2' as const };

/** The grid's rules, pure: where a seat goes when it is opened, what a pin keeps. */
describe('the grid', () => {
  it('opening a seat puts it in the focused slot; opening a visible one only focuses it', () => {
    const a = openSeat(l0, 'a@r');
    expect(visibleSlots(a)).toEqual(['a@r', undefined, undefined, undefined]);
    const b = openSeat({ ...a, focus: 2 }, 'b@r');
    expect(visibleSlots(b)).toEqual(['a@r', undefined, 'b@r', undefined]);
    expect(openSeat(b, 'a@r')).toMatchObject({ focus: 0, slots: b.slots });
  });

  it('from the rail, a seat fills an empty slot before it replaces the focused one', () => {
    const a = openSeat(l0, 'a@r', { fill: true });
    const b = openSeat(a, 'b@r', { fill: true });
    expect(visibleSlots(b)).toEqual(['a@r', 'b@r', undefined, undefined]);
    expect(b.focus).toBe(1);
  });

  it('a pinned slot keeps its seat: the next one goes to a free or unpinned slot', () => {
    const p = pinSeat(l0, 'a@r');
    expect(p.pinned[0]).toBe(true);
    const next = openSeat(p, 'b@r');
    expect(visibleSlots(next)).toEqual(['a@r', 'b@r', undefined, undefined]);
    const unpinned = togglePin(next, 0);
    expect(unpinned.pinned[0]).toBe(false);
    expect(visibleSlots(openSeat({ ...unpinned, focus: 0 }, 'c@r'))[0]).toBe('c@r');
  });

  it('a smaller grid shows the first slots and keeps the others for when it grows again', () => {
    let l = openSeat(openSeat(openSeat(l0, 'a@r', { fill: true }), 'b@r', { fill: true }), 'c@r', { fill: true });
    l = setGrid(l, '1x2');
    expect(visibleSlots(l)).toEqual(['a@r', 'b@r']);
    expect(visibleSlots(setGrid(l, '2x2'))).toEqual(['a@r', 'b@r', 'c@r', undefined]);
    expect(setGrid({ ...l, focus: 3 }, '1').focus).toBe(0);
  });

  it('a seat no longer recorded leaves its slot', () => {
    const l = pinSeat(l0, 'gone@r');
    expect(visibleSlots(dropUnknown(l, (s) => s !== 'gone@r'))).toEqual([undefined, undefined, undefined, undefined]);
  });
});

describe('the rail', () => {
  const row = (over: Partial<PsRow>): PsRow => ({
    seat: 's@r',
    rig: 'r',
    pod: 'p',
    member: 's',
    runtime: 'shell',
    cwd: '/',
    state: 'running',
    activity: 'idle',
    stoppedOnPurpose: false,
    ...over,
  });

  it('one state word per seat: a stopped seat with an open decision needs you', () => {
    expect(stateWord(row({ activity: 'needs_input' }))).toBe('needs_input');
    expect(stateWord(row({ state: 'stopped' }))).toBe('stopped');
    expect(stateWord(row({ state: 'stopped' }), true)).toBe('needs_input');
    expect(stateWord(row({ state: 'gone' }))).toBe('exited');
    expect(stateWord(undefined)).toBe('unknown');
  });

  it('the attention order puts what needs you first and keeps the spec order among equals', () => {
    const seats = [
      { n: 'idle1', w: 'idle', u: false },
      { n: 'work', w: 'working', u: false },
      { n: 'idle2', w: 'idle', u: true },
      { n: 'needs', w: 'needs_input', u: false },
      { n: 'gone', w: 'exited', u: false },
      { n: 'idle3', w: 'idle', u: false },
    ] as const;
    expect(attentionOrder(seats, (s) => attentionRank(s.w, s.u)).map((s) => s.n)).toEqual([
      'needs',
      'gone',
      'idle2',
      'work',
      'idle1',
      'idle3',
    ]);
  });

  it('a time-in-state label changes at most 4 times in its first minute and once a minute after (each change repaints the rail)', () => {
    const labels = (from: number, to: number) =>
      new Set(Array.from({ length: (to - from) / 5 + 1 }, (_, i) => since(0, (from + i * 5) * 1000)));
    expect([...labels(0, 55)]).toEqual(['just now', '15 s', '30 s', '45 s']);
    expect([...labels(60, 175)]).toEqual(['1 min', '2 min']);
    expect(since(0, 3 * 3600_000)).toBe('3 h');
  });
});

describe('an empty slot and a decision card say what is there', () => {
  it('a seat with a restore decision needs you (never "is needs you"); otherwise its state', () => {
    expect(notRunningLine('b@crew', 'needs you', 'transcript_missing')).toBe(
      'b@crew needs you: a restore decision waits (transcript missing); see Decisions.',
    );
    expect(notRunningLine('b@crew', 'stopped')).toBe('b@crew is stopped.');
    expect(notRunningLine('b@crew', undefined)).toBe('b@crew is not reported yet.');
  });
  it('evidence with nothing in it is not shown', () => {
    expect([undefined, null, {}].map(hasEvidence)).toEqual([false, false, false]);
    expect([{ why: 'x' }, 'text', 0].map(hasEvidence)).toEqual([true, true, true]);
  });
});
