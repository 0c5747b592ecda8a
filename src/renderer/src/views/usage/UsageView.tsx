import { lazy, Suspense, useEffect, useMemo, useRef, useState } from 'react';
import type { PlanLimit, PsRow } from '../../../../shared/contract';
import { useClock } from '../../state/clock';
import { useWindow } from '../../state/store';
import { RigPicker, useViewRig } from '../RigPicker';
import { clockTime, compact, usd } from './format';
import { colourOf, type Line, type Lines, linesOf, type Measure } from './lines';
import { ContextMeters, PlanLimits } from './UsageMeters';
import { RANGES, type Range, type SeriesAnswer, type SeriesBy, useUsageSeries } from './use-usage-series';

// The chart (uPlot) loads when the Usage view is first shown.
const UsageChart = lazy(() => import('./UsageChart').then((m) => ({ default: m.UsageChart })));

/** The Usage view: a rig's tokens or cost over time per seat or pod, each seat's context, the plan limits. */
export function UsageView() {
  const rig = useViewRig();
  if (!rig)
    return (
      <section className="view-empty" aria-label="usage">
        <p>No rig yet: its usage shows here once one is up.</p>
      </section>
    );
  return <RigUsage key={rig} rig={rig} />;
}

const RANGE_WORD: Record<Range, string> = {
  all: 'all the history',
  '1h': 'the last hour',
  '24h': 'the last 24 hours',
  '7d': 'the last 7 days',
};

function useRigSeats(rig: string): string[] {
  const list = useWindow(
    (s) =>
      s.topology.rigs
        .find((r) => r.name === rig)
        ?.pods.flatMap((p) => p.seats.map((x) => x.seat))
        .join('\n') ?? '',
  );
  return useMemo(() => (list ? list.split('\n') : []), [list]);
}

/** One entry per account, limit and window: the seats of one CLI home share their plan's limits. */
function limitsOf(seats: string[], rows: Record<string, PsRow>): PlanLimit[] {
  const out = new Map<string, PlanLimit>();
  for (const l of seats.flatMap((s) => rows[s]?.limits ?? []))
    out.set(`${l.runtime}\0${l.account}\0${l.limitId}\0${l.window}`, l);
  return [...out.values()];
}

function RigUsage({ rig }: { rig: string }) {
  const [measure, setMeasure] = useState<Measure>('tokens');
  const [by, setBy] = useState<SeriesBy>('seat');
  const [range, setRange] = useState<Range>('all');
  const { answer, failure } = useUsageSeries(rig, by, range);
  const seats = useRigSeats(rig);
  const rows = useWindow((s) => s.seats);
  const root = useRef<HTMLElement>(null);
  useEffect(() => root.current?.focus(), []);
  return (
    <section
      ref={root}
      tabIndex={-1}
      className="usage-view"
      aria-label={`usage of ${rig}`}
      data-usage-view={rig}
      onKeyDown={(e) => {
        if (e.target instanceof HTMLSelectElement || e.ctrlKey || e.metaKey || e.altKey) return;
        if (e.key === 't') setMeasure('tokens');
        else if (e.key === 'c') setMeasure('cost');
        else if (e.key === 's') setBy('seat');
        else if (e.key === 'p') setBy('pod');
      }}
    >
      <header className="view-head">
        <RigPicker rig={rig} />
        <Switch
          label="show"
          value={measure}
          set={setMeasure}
          hook="data-usage-measure"
          options={[
            ['tokens', 'Tokens', 'T'],
            ['cost', 'Cost (estimate)', 'C'],
          ]}
        />
        <Switch
          label="lines per"
          value={by}
          set={setBy}
          hook="data-usage-by"
          options={[
            ['seat', 'Seat', 'S'],
            ['pod', 'Pod', 'P'],
          ]}
        />
        <label>
          <span>since</span>
          <select aria-label="range" value={range} onChange={(e) => setRange(e.target.value as Range)}>
            {(Object.keys(RANGES) as Range[]).map((r) => (
              <option key={r} value={r}>
                {r === 'all' ? 'the first sample' : RANGE_WORD[r].replace('the last ', 'last ')}
              </option>
            ))}
          </select>
        </label>
      </header>
      <div className="usage-body">
        <div className="usage-main">
          {failure && <p className="refusal">{failure}</p>}
          {answer ? (
            <Drawn answer={answer} measure={measure} range={range} rows={rows} />
          ) : (
            !failure && <p className="muted usage-wait">Reading the samples…</p>
          )}
        </div>
        <aside className="usage-side">
          <ContextMeters seats={seats} rows={rows} />
          <PlanLimits limits={limitsOf(seats, rows)} />
        </aside>
      </div>
    </section>
  );
}

function Switch<T extends string>(p: {
  label: string;
  value: T;
  set: (v: T) => void;
  hook: string;
  options: [T, string, string][];
}) {
  return (
    <fieldset className="usage-switch">
      <legend>{p.label}</legend>
      {p.options.map(([v, text, key]) => (
        <button
          key={v}
          type="button"
          className="chip"
          aria-pressed={p.value === v}
          title={`${text} (${key})`}
          {...{ [p.hook]: v }}
          onClick={() => p.set(v)}
        >
          {text}
        </button>
      ))}
    </fieldset>
  );
}

/** The chart, its legend with each line's total, and what the estimate rests on. */
function Drawn(p: { answer: SeriesAnswer; measure: Measure; range: Range; rows: Record<string, PsRow> }) {
  const now = useClock((s) => s.now);
  const [hover, setHover] = useState<number | null>(null);
  const lines = useMemo(() => linesOf(p.answer, p.measure), [p.answer, p.measure]);
  // A line keeps its colour whatever its rank: colours go by the keys' own order.
  const colour = useMemo(() => {
    const keys = p.answer.series.map((s) => s.key).sort();
    return (key: string) => colourOf(keys.indexOf(key));
  }, [p.answer]);
  const what = p.measure === 'tokens' ? 'Tokens (in + out)' : 'Cost, estimated in USD,';
  const from = p.answer.since !== undefined ? `since ${clockTime(p.answer.since, now)}` : `over ${RANGE_WORD.all}`;
  const title = `${what} per ${p.answer.by} ${from}`;
  if (p.answer.series.length === 0)
    return (
      <p className="muted usage-wait" data-usage-empty>
        No samples in {RANGE_WORD[p.range]}: a seat's figures are sampled once its runtime records a reply.
      </p>
    );
  return (
    <>
      <h3 className="usage-title">{title}</h3>
      <Hovered lines={lines} at={hover} measure={p.measure} />
      <Suspense fallback={null}>
        <UsageChart lines={lines} measure={p.measure} colour={colour} label={title} onHover={setHover} />
      </Suspense>
      <Legend lines={lines} answer={p.answer} colour={colour} rows={p.rows} measure={p.measure} />
      <p className="usage-basis" data-usage-basis>
        Cost is an <strong>estimate</strong>: each conversation's tokens by kind times its model's prices, from{' '}
        <span data-price-source>
          {p.answer.basis.catalog.name} {p.answer.basis.catalog.version}
        </span>{' '}
        (the model catalog), else from your settings ({p.answer.basis.settings.path}). Not your bill: plans and
        discounts are not known.
        {p.answer.basis.settings.problem && (
          <span className="refusal"> The settings are not used: {p.answer.basis.settings.problem}</span>
        )}
      </p>
    </>
  );
}

/** The lines' sums at the time under the pointer, else now (the chart draws no legend of its own). */
function Hovered(p: { lines: Lines; at: number | null; measure: Measure }) {
  const i = p.at ?? p.lines.xs.length - 1;
  const t = p.lines.xs[i];
  const fmt = p.measure === 'tokens' ? compact : usd;
  if (t === undefined) return null;
  const when = p.at === null ? 'now' : `at ${clockTime(t * 1000, Date.now())}`;
  const sums = p.lines.lines.map((l) => {
    const v = l.values[i];
    return `${shortKey(l.key)} ${v === null || v === undefined ? 'no price' : fmt(v)}`;
  });
  return (
    <p className="usage-hover" data-usage-hover={p.at === null ? 'now' : t}>
      {when}: {sums.join(' · ')}
    </p>
  );
}

/** A seat line's price, as its ps row says: where it came from, or why there is none. */
function priceNote(row: PsRow | undefined): string {
  if (!row) return '';
  if (row.costUsd !== undefined)
    return `from ${row.costSource ?? 'catalog'}${row.costBasis ? ` (${row.costBasis})` : ''}`;
  return row.costWhy ?? '';
}

/** A line's name without the rig the view already shows: `lead`, `build`; the full key in its title. */
const shortKey = (key: string) => key.slice(0, key.lastIndexOf('@')) || key;

/** Each line's colour, name and totals in the range, largest first: the chart's key and its figures. */
function Legend(p: {
  lines: { lines: Line[] };
  answer: SeriesAnswer;
  colour: (key: string) => string;
  rows: Record<string, PsRow>;
  measure: Measure;
}) {
  const series = (key: string) => p.answer.series.find((s) => s.key === key);
  return (
    <div className="usage-legend-box">
      <table className="usage-legend" aria-label="lines">
        <thead>
          <tr>
            <th scope="col">{p.answer.by}</th>
            <th scope="col">tokens</th>
            <th scope="col">cost (estimate)</th>
            <th scope="col">prices</th>
          </tr>
        </thead>
        <tbody>
          {p.lines.lines.map((l) => {
            const s = series(l.key);
            const last = s?.points.at(-1);
            const note = p.answer.by === 'seat' ? priceNote(p.rows[l.key]) : '';
            return (
              <tr
                key={l.key}
                data-usage-series={l.key}
                data-tokens={last?.tokens}
                data-cost={last?.costUsd}
                data-points={s?.points.length}
              >
                <th scope="row" title={l.key}>
                  <span className="swatch" style={{ background: p.colour(l.key) }} aria-hidden="true" />
                  {shortKey(l.key)}
                </th>
                <td title={`${(last?.tokens ?? 0).toLocaleString('en')} tokens`}>{compact(last?.tokens ?? 0)}</td>
                <td>{last?.costUsd !== undefined ? `~${usd(last.costUsd)}` : 'no price'}</td>
                <td className="note" title={note || undefined}>
                  {note}
                </td>
              </tr>
            );
          })}
        </tbody>
      </table>
    </div>
  );
}
