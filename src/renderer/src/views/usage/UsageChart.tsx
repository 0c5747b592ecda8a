import 'uplot/dist/uPlot.min.css';
import { useEffect, useRef } from 'react';
import uPlot from 'uplot';
import { compact, usd } from './format';
import type { Lines, Measure } from './lines';

/** The theme's colours for the axes, read once per chart from the CSS (light or dark). */
function themeColours(el: HTMLElement): { text: string; grid: string } {
  const css = getComputedStyle(el);
  return {
    text: css.getPropertyValue('--muted').trim() || '#5b6470',
    grid: css.getPropertyValue('--line').trim() || '#d7dbe0',
  };
}

const two = (n: number) => String(n).padStart(2, '0');

/** The time axis on a 24-hour clock: seconds in a range of minutes, the date in one of days. */
function timeTicks(u: uPlot, ticks: number[]): string[] {
  const span = (u.scales.x?.max ?? 0) - (u.scales.x?.min ?? 0);
  return ticks.map((t) => {
    const d = new Date(t * 1000);
    const hm = `${two(d.getHours())}:${two(d.getMinutes())}`;
    if (span < 600) return `${hm}:${two(d.getSeconds())}`;
    return span < 2 * 86_400 ? hm : `${d.getMonth() + 1}/${d.getDate()} ${hm}`;
  });
}

interface Drawing {
  lines: Lines;
  measure: Measure;
  colour: (key: string) => string;
  /** The time under the pointer (its index in `lines.xs`), or null when it leaves the chart. */
  onHover: (idx: number | null) => void;
}

function options(el: HTMLElement, p: Drawing, size: { width: number; height: number }): uPlot.Options {
  const { lines, measure, colour } = p;
  const { text, grid } = themeColours(el);
  const axis = { stroke: text, grid: { stroke: grid, width: 1 }, ticks: { stroke: grid, width: 1 } };
  const value = measure === 'tokens' ? compact : usd;
  return {
    ...size,
    legend: { show: false },
    cursor: { drag: { x: false, y: false } },
    hooks: { setCursor: [(u) => p.onHover(u.cursor.idx ?? null)] },
    scales: { x: { time: true }, y: { range: (_u, _min, max) => [0, max > 0 ? max * 1.08 : 1] } },
    axes: [
      { ...axis, values: timeTicks },
      { ...axis, size: 64, values: (_u, ticks) => ticks.map((t) => value(t)) },
    ],
    series: [
      {},
      ...lines.lines.map((l) => ({
        label: l.key,
        stroke: colour(l.key),
        width: 2,
        // A running sum steps when a sample says so; it is not known to climb between two.
        paths: uPlot.paths.stepped!({ align: 1 }),
        points: { show: false },
        spanGaps: false,
      })),
    ],
  };
}

/**
 * The lines drawn with uPlot (one canvas, cheap to redraw): built again when the set of lines or
 * the measure changes, else only given new data; sized to its box as the window and panels move.
 */
export function UsageChart(p: Drawing & { label: string }) {
  const box = useRef<HTMLDivElement>(null);
  const plot = useRef<uPlot>(null);
  const shape = `${p.measure}|${p.lines.lines.map((l) => l.key).join('\n')}`;
  const data: uPlot.AlignedData = [p.lines.xs, ...p.lines.lines.map((l) => l.values)];
  // biome-ignore lint/correctness/useExhaustiveDependencies: built again only when the shape changes; data follows below
  useEffect(() => {
    const el = box.current;
    if (!el) return;
    const size = { width: Math.max(200, el.clientWidth), height: Math.max(160, el.clientHeight) };
    const u = new uPlot(options(el, p, size), data, el);
    plot.current = u;
    const resized = new ResizeObserver(() =>
      u.setSize({ width: Math.max(200, el.clientWidth), height: Math.max(160, el.clientHeight) }),
    );
    resized.observe(el);
    return () => {
      resized.disconnect();
      u.destroy();
      plot.current = null;
    };
  }, [shape]);
  useEffect(() => {
    plot.current?.setData(data);
  });
  return (
    <div
      className="usage-chart"
      ref={box}
      role="img"
      aria-label={p.label}
      data-usage-chart={p.measure}
      data-lines={p.lines.lines.length}
      data-times={p.lines.xs.length}
    />
  );
}
