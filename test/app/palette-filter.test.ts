import { describe, expect, it } from 'vitest';
import { paletteFilter } from '../../src/renderer/src/views/palette-filter';

// A seat's item as the palette builds it: its name and id, then member, rig, pod, runtime, state.
const item = (p: number, m: number): [string, string[]] => [
  `p${p}m${m}@big seat:p${p}m${m}@big`,
  [`m${m}`, 'big', `pod${p}`, 'shell', 'idle', 'Idle'],
];

describe('the palette search', () => {
  it('finds a seat by its name', () => {
    expect(paletteFilter(...withQuery(item(17, 4), 'p17m4'))).toBeGreaterThan(0);
    expect(paletteFilter(...withQuery(item(12, 3), 'p17m4'))).toBe(0);
  });

  it('takes the words of a query in any order, every one of them', () => {
    expect(paletteFilter(...withQuery(item(12, 3), 'idle p12'))).toBeGreaterThan(0);
    expect(paletteFilter(...withQuery(item(12, 3), 'p12 idle'))).toBeGreaterThan(0);
    expect(paletteFilter(...withQuery(item(12, 3), 'pod12 m3'))).toBeGreaterThan(0);
    expect(paletteFilter(...withQuery(item(12, 3), 'pod12 working'))).toBe(0);
  });

  it('ranks the seat named before one that only holds the letters', () => {
    const named = paletteFilter(...withQuery(item(17, 4), 'p17m4 idle'));
    const other = paletteFilter(...withQuery(item(1, 7), 'p17m4 idle'));
    expect(named).toBeGreaterThan(other);
  });
});

function withQuery([value, keywords]: [string, string[]], q: string): [string, string, string[]] {
  return [value, q, keywords];
}
