import type { SeriesAnswer } from './use-usage-series';

export type Measure = 'tokens' | 'cost';

export interface Line {
  key: string;
  /** The running sum at the range's end: what the group spent in the range (absent: some of it unpriced). */
  last?: number;
  /** One value per time of `xs`: the running sum then, null where it is not known. */
  values: (number | null)[];
}

export interface Lines {
  /** Seconds (uPlot's time unit): the range's start, every sample minute, the answer's moment. */
  xs: number[];
  lines: Line[];
}

/** A sample's minute is its start: what it holds was spent within the minute before the next. */
const MINUTE = 60_000;

/**
 * The answer's running sums on one time axis. Each line starts at 0 where the range starts (the
 * `since` asked, else a minute before the first sample: nothing of the range was spent before it)
 * and keeps its last sum to the answer's moment. Between its samples a line keeps its last value:
 * a running sum holds until the next sample says otherwise. A cost with no price is null from the
 * point it lost one, never 0.
 */
export function linesOf(a: SeriesAnswer, measure: Measure): Lines {
  const times = new Set<number>();
  for (const s of a.series) for (const p of s.points) times.add(p.at);
  const first = Math.min(...times);
  const start = a.since ?? (Number.isFinite(first) ? first - MINUTE : a.until - MINUTE);
  const at = [...new Set([start, ...[...times].sort((x, y) => x - y), Math.max(a.until, start)])];
  const lines = a.series.map((s): Line => {
    const byAt = new Map(s.points.map((p) => [p.at, measure === 'tokens' ? p.tokens : (p.costUsd ?? null)]));
    let now: number | null = 0;
    const values = at.map((t) => {
      if (byAt.has(t)) now = byAt.get(t)!;
      return now;
    });
    const last = values.at(-1);
    return { key: s.key, values, ...(last !== null && last !== undefined ? { last } : {}) };
  });
  lines.sort((x, y) => (y.last ?? -1) - (x.last ?? -1) || x.key.localeCompare(y.key));
  return { xs: at.map((t) => t / 1000), lines };
}

/** Distinct hues that read on light and dark, one per line in the legend's order. */
export const LINE_COLOURS = [
  '#2f6fdf',
  '#e0672a',
  '#2f9e5a',
  '#b8479e',
  '#8a6d00',
  '#1f9aa8',
  '#c23b3b',
  '#6b5fd6',
  '#7a8a2e',
  '#8c5a3c',
];
export const colourOf = (i: number): string => LINE_COLOURS[i % LINE_COLOURS.length]!;
