import { describe, expect, it } from 'vitest';
import { linesOf } from '../../src/renderer/src/views/usage/lines';
import type { SeriesAnswer } from '../../src/renderer/src/views/usage/use-usage-series';

const M = 60_000;
const basis = {
  catalog: { name: '@pydantic/genai-prices', version: '0.1.8' },
  settings: { path: '/h/settings' },
};
const answer = (a: Partial<SeriesAnswer>): SeriesAnswer => ({ by: 'seat', until: 10 * M, series: [], basis, ...a });

/** The Usage view's lines, pure: the running sums the engine answers, on one time axis. */
describe('the Usage view lines', () => {
  it('start at 0 a minute before the first sample, hold each sum until the next sample, and end at the answer', () => {
    const l = linesOf(
      answer({
        series: [
          {
            key: 'a@r',
            points: [
              { at: 2 * M, tokens: 100, costUsd: 0.1 },
              { at: 4 * M, tokens: 250, costUsd: 0.3 },
            ],
          },
          { key: 'b@r', points: [{ at: 3 * M, tokens: 400 }] },
        ],
      }),
      'tokens',
    );
    expect(l.xs).toEqual([1, 2, 3, 4, 10].map((m) => (m * M) / 1000));
    // Largest spending first.
    expect(l.lines.map((x) => x.key)).toEqual(['b@r', 'a@r']);
    expect(l.lines[1]).toEqual({ key: 'a@r', values: [0, 100, 100, 250, 250], last: 250 });
    expect(l.lines[0]).toEqual({ key: 'b@r', values: [0, 0, 400, 400, 400], last: 400 });
  });

  it('start at the asked since; a cost without a price is null (a gap), never 0', () => {
    const l = linesOf(
      answer({
        since: 0,
        series: [
          { key: 'a@r', points: [{ at: 2 * M, tokens: 100, costUsd: 0.1 }] },
          { key: 'b@r', points: [{ at: 3 * M, tokens: 400 }] },
        ],
      }),
      'cost',
    );
    expect(l.xs[0]).toBe(0);
    expect(l.lines.find((x) => x.key === 'a@r')).toEqual({ key: 'a@r', values: [0, 0.1, 0.1, 0.1], last: 0.1 });
    expect(l.lines.find((x) => x.key === 'b@r')).toEqual({ key: 'b@r', values: [0, 0, null, null] });
  });

  it('an answer with no samples draws an empty axis over the last minute', () => {
    expect(linesOf(answer({}), 'tokens')).toEqual({ xs: [9 * 60, 10 * 60], lines: [] });
  });
});
