import { describe, expect, it } from 'vitest';
import { offersOf, questionOffers } from '../../../src/main/engine/prompts/screens';
import { readOptions } from '../../../src/main/engine/runtimes/types';

/** A prompt's numbered options as the screens draw them, and the answers named from them. */
describe('prompt options', () => {
  const keys = { approve: ['Enter'], deny: ['Escape'] };

  it("reads Claude's options at full width and in a narrow pane (no space after the number)", () => {
    const wide = readOptions([
      ' ❯ 1. Yes',
      '   2. Yes, and always allow access to work/ from this project',
      '   3. No',
    ]);
    const narrow = readOptions([
      ' ❯ 1. Yes',
      '   2.Yes, and always allow access to',
      '     work/ from this project',
      '   3. No',
    ]);
    for (const opts of [wide, narrow]) {
      expect(opts.map((o) => [o.n, o.key])).toEqual([
        [1, '1'],
        [2, '2'],
        [3, '3'],
      ]);
      expect(offersOf(keys, opts, true).map((o) => [o.choice, o.keys.join(' ')])).toEqual([
        ['approve', 'Enter'],
        ['allow_always', '2'],
        ['deny', 'Escape'],
        ['deny_with_message', 'Escape'],
      ]);
    }
  });

  it("takes Codex's shortcut keys, esc included", () => {
    const opts = readOptions([
      '› 1. Yes, proceed (y)',
      "  2. Yes, and don't ask again for commands that start with `touch x` (p)",
      '  3. No, and tell Codex what to do differently (esc)',
    ]);
    expect(opts.map((o) => o.key)).toEqual(['y', 'p', 'Escape']);
    expect(opts[1]!.label).toMatch(/^Yes, and don't ask again/);
  });

  it('offers no allow_always where the prompt has no wider approval, and no approve when the highlight moved', () => {
    const opts = readOptions(['❯ 1. Yes', '  2. No']);
    expect(offersOf(keys, opts, false).map((o) => o.choice)).toEqual(['deny', 'deny_with_message']);
  });

  it("names a question's options, its answer of one's own, and cancel; never 'Chat about this'", () => {
    const opts = readOptions([
      '❯ 1. Red',
      '     the fake server',
      '  2. Blue',
      '  3. Type something.',
      '  4. Chat about this',
    ]);
    expect(questionOffers(keys, opts).map((o) => [o.choice, o.label, o.keys[0]])).toEqual([
      ['option', 'Red', '1'],
      ['option', 'Blue', '2'],
      ['other', 'Other (type an answer)', '3'],
      ['deny', 'Cancel', 'Escape'],
    ]);
  });
});
