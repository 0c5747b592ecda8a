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

function options(
  el: HTMLElement,
  lines: Lines,
  measure: Measure,
  colour: (key: string) => string,
  size: { width: number; height: number },
): uPlot.Options {
  const { text, grid } = themeColours(el);
  const axis = { stroke: text, grid: { stroke: grid, width: 1 }, ticks: { stroke: grid, width: 1 } };
  const value = measure === 'tokens' ? compact : usd;
  return {
    ...size,
    legend: { show: false },
    cursor: { drag: { x: false, y: false } },
    scales: { x: { time: true }, y: { range: (_u, _min, max) => [0, max > 0 ? max * 1.08 : 1] } },
    axes: [{ ...axis }, { ...axis, size: 64, values: (_u, ticks) => ticks.map((t) => value(t)) }],
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
export function UsageChart(p: { lines: Lines; measure: Measure; colour: (key: string) => string; label: string }) {
  const box = useRef<HTMLDivElement>(null);
  const plot = useRef<uPlot>(null);
  const shape = `${p.measure}|${p.lines.lines.map((l) => l.key).join('\n')}`;
  const data: uPlot.AlignedData = [p.lines.xs, ...p.lines.lines.map((l) => l.values)];
  // biome-ignore lint/correctness/useExhaustiveDependencies: built again only when the shape changes; data follows below
  useEffect(() => {
    const el = box.current;
    if (!el) return;
    const size = { width: Math.max(200, el.clientWidth), height: Math.max(160, el.clientHeight) };
    const u = new uPlot(options(el, p.lines, p.measure, p.colour, size), data, el);
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
