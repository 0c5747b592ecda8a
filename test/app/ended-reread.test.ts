import { describe, expect, it } from 'vitest';
import { rereadFor } from '../../src/renderer/src/views/EndedTurns';

/**
 * A finished-turn card reads its reply again for 30 s after the window saw the turn end (the
 * agent may draw its last words after the hook that ends the turn), and no longer: a card shown
 * again later (another view, then back; a window opened on many such cards) reads its pane once.
 */
describe('how long a finished-turn card reads its reply again', () => {
  it('30 s from the turn end this window saw, what is left of them later, none after', () => {
    expect(rereadFor(1_000, 1_000)).toBe(30_000);
    expect(rereadFor(1_000, 21_000)).toBe(10_000);
    expect(rereadFor(1_000, 31_000)).toBe(0);
    expect(rereadFor(1_000, 600_000)).toBe(0);
  });

  it('30 s when the window never saw the end, and never more than 30 s when the clock went back', () => {
    expect(rereadFor(undefined, 5_000)).toBe(30_000);
    expect(rereadFor(50_000, 10_000)).toBe(30_000);
  });
});
