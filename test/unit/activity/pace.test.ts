import { describe, expect, it } from 'vitest';
import { LookPacer } from '../../../src/main/engine/activity/pace';

describe('LookPacer: when to look at a seat whose pane printed', () => {
  it('output after a quiet spell is looked at one debounce later', () => {
    const p = new LookPacer(30, 240, 400);
    expect(p.dueAt('a', 1000)).toBe(1030);
    p.looked('a', 1030);
    // A second later: quiet in between, so news again.
    expect(p.dueAt('a', 2000)).toBe(2030);
  });

  it('while output keeps coming, each look waits twice as long as the last, up to the cap', () => {
    const p = new LookPacer(30, 240, 400);
    let t = 0;
    const gaps: number[] = [];
    let last = 0;
    for (let i = 0; i < 8; i++) {
      // The pane prints again right after every look.
      const due = p.dueAt('a', t + 1);
      gaps.push(due - last);
      last = due;
      p.looked('a', due);
      t = due;
    }
    expect(gaps.slice(1)).toEqual([31, 60, 120, 240, 240, 240, 240]);
  });

  it('the end of a stream is seen within the cap of the last look', () => {
    const p = new LookPacer(30, 240, 400);
    for (const t of [0, 60, 180, 420]) p.looked('a', t);
    // The last output (a prompt) arrives just after a look.
    expect(p.dueAt('a', 421) - 421).toBeLessThanOrEqual(240);
  });

  it('a quiet gap longer than a stream resets the pacing', () => {
    const p = new LookPacer(30, 240, 400);
    for (const t of [0, 60, 180, 420]) p.looked('a', t);
    p.looked('a', 1000);
    expect(p.dueAt('a', 1001)).toBe(1031);
  });

  it('urgent news (a hook, a live-state file) is never paced, and seats are paced apart', () => {
    const p = new LookPacer(30, 240, 400);
    for (const t of [0, 60, 180, 420]) p.looked('a', t);
    expect(p.dueAt('a', 421, true)).toBe(451);
    expect(p.dueAt('b', 421)).toBe(451);
  });

  describe('holdUntil: a working seat streaming output is looked at when the output pauses', () => {
    const pacer = () => {
      const p = new LookPacer(30, 240, 400, 120, 800);
      p.looked('a', 1000);
      return p;
    };

    it('waits for a pause: the look comes one quiet spell after the last output', () => {
      expect(pacer().holdUntil('a', 1100, true, 1090)).toBe(1210);
    });

    it('output that never pauses is still looked at one cap after the previous look', () => {
      expect(pacer().holdUntil('a', 1700, true, 1699)).toBe(1800);
      expect(pacer().holdUntil('a', 1850, true, 1849)).toBe(1850);
    });

    it('output that has already paused is looked at now', () => {
      expect(pacer().holdUntil('a', 1300, true, 1100)).toBe(1300);
    });

    it('a seat not seen working is never held: its first output is news', () => {
      expect(pacer().holdUntil('a', 1100, false, 1099)).toBe(1100);
    });

    it('a watch that cannot tell when the pane printed, or a seat never looked at, is never held', () => {
      expect(pacer().holdUntil('a', 1100, true, undefined)).toBe(1100);
      expect(pacer().holdUntil('b', 1100, true, 1099)).toBe(1100);
    });
  });
});
