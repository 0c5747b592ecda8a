import { memo, useCallback, useEffect, useRef, useState } from 'react';
import {
  type EventRow,
  isQuietEvent,
  TIMELINE_KINDS,
  type TimelineKind,
  timelineKindOf,
} from '../../../shared/contract';
import { call, openInGrid } from '../state/actions';
import { useWindow } from '../state/store';
import { describeEvent } from '../../../shared/events-text';
import { RigPicker, useViewRig } from './RigPicker';

/** One page of the log per request: the first answer holds this many rows, scrolling asks for the next. */
export const TIMELINE_PAGE = 100;

/** The rig's event log as a timeline, newest first: filtered by seat and kind, paged from the store, live. */
export function TimelineView() {
  const rig = useViewRig();
  if (!rig)
    return (
      <section className="view-empty" aria-label="timeline">
        <p>No rig yet: its events show here once one is up.</p>
      </section>
    );
  return <RigTimeline key={rig} rig={rig} />;
}

interface Pages {
  events: EventRow[];
  more: boolean;
  loading: boolean;
  failure?: string;
  /** The newest seq the store had when the first page was read: live rows are the ones after it. */
  top: number;
  /** The filter's read these pages came from: a page is asked only of the filter shown. */
  gen: number;
}

const EMPTY: Pages = { events: [], more: false, loading: true, top: Number.MAX_SAFE_INTEGER, gen: 0 };

function usePages(rig: string, seat: string, kinds: TimelineKind[]) {
  const [pages, setPages] = useState<Pages>(EMPTY);
  const generation = useRef(0);
  const filterKey = `${seat}|${kinds.join(',')}`;
  // biome-ignore lint/correctness/useExhaustiveDependencies: the filter is what filterKey says (kinds is a new array each render)
  const read = useCallback(
    (beforeSeq?: number) =>
      call(
        'workspace.rigTimeline',
        {
          rig,
          limit: TIMELINE_PAGE,
          ...(seat ? { seats: [seat] } : {}),
          ...(kinds.length ? { kinds } : {}),
          ...(beforeSeq ? { beforeSeq } : {}),
        },
        `the timeline of ${rig}`,
        { quiet: true },
      ),
    [rig, filterKey],
  );
  useEffect(() => {
    const g = ++generation.current;
    const storeTop = useWindow.getState().events.at(-1)?.seq ?? 0;
    setPages({ ...EMPTY, gen: g });
    void read().then((r) => {
      if (g !== generation.current || !r) return;
      if (!r.ok) return setPages({ ...EMPTY, gen: g, loading: false, failure: r.message });
      setPages({
        events: r.events,
        more: r.more,
        loading: false,
        top: Math.max(r.events[0]?.seq ?? 0, storeTop),
        gen: g,
      });
    });
  }, [read]);
  const more = useCallback(() => {
    const last = pages.events.at(-1)?.seq;
    // An end seen in the frame a filter changed belongs to the last filter's rows: not this one's.
    if (pages.gen !== generation.current || pages.loading || !pages.more || last === undefined) return;
    const g = generation.current;
    setPages((p) => ({ ...p, loading: true }));
    void read(last).then((r) => {
      if (g !== generation.current || !r) return;
      setPages((p) =>
        r.ok
          ? { ...p, events: [...p.events, ...r.events], more: r.more, loading: false }
          : { ...p, loading: false, failure: r.message },
      );
    });
  }, [pages, read]);
  return { pages, more };
}

function RigTimeline({ rig }: { rig: string }) {
  const seats = useWindow(
    (s) =>
      s.topology.rigs
        .find((r) => r.name === rig)
        ?.pods.flatMap((p) => p.seats.map((x) => x.seat))
        .join('\n') ?? '',
  );
  const [seat, setSeat] = useState('');
  const [kinds, setKinds] = useState<TimelineKind[]>([]);
  const { pages, more } = usePages(rig, seat, kinds);
  const matches = (e: EventRow) => {
    if (e.rig !== rig || isQuietEvent(e.kind)) return false;
    if (seat && e.seat !== seat) return false;
    const k = timelineKindOf(e.kind);
    return kinds.length === 0 || (k !== undefined && kinds.includes(k));
  };
  const live = useWindow((s) => s.events).filter((e) => e.seq > pages.top && matches(e));
  const rows = [...live.reverse(), ...pages.events];
  const toggle = (k: TimelineKind) => setKinds((ks) => (ks.includes(k) ? ks.filter((x) => x !== k) : [...ks, k]));
  return (
    <section className="timeline-view" aria-label={`timeline of ${rig}`} data-timeline={rig}>
      <header className="view-head">
        <RigPicker rig={rig} />
        <label className="seat-pick">
          <span>seat</span>
          <select aria-label="seat" value={seat} onChange={(e) => setSeat(e.target.value)}>
            <option value="">every seat</option>
            {(seats ? seats.split('\n') : []).map((s) => (
              <option key={s} value={s}>
                {s}
              </option>
            ))}
          </select>
        </label>
        <fieldset className="kind-filter">
          <legend>kinds</legend>
          {TIMELINE_KINDS.map((k) => (
            <button
              key={k}
              type="button"
              className={`chip g-${k}`}
              data-kind-filter={k}
              aria-pressed={kinds.includes(k)}
              onClick={() => toggle(k)}
            >
              {k}
            </button>
          ))}
          {kinds.length > 0 && (
            <button type="button" className="link" onClick={() => setKinds([])}>
              all kinds
            </button>
          )}
        </fieldset>
      </header>
      <Rows rows={rows} pages={pages} more={more} filter={`${rig}|${seat}|${kinds.join(',')}`} />
    </section>
  );
}

function Rows({ rows, pages, more, filter }: { rows: EventRow[]; pages: Pages; more: () => void; filter: string }) {
  const scroller = useRef<HTMLDivElement>(null);
  const end = useRef<HTMLDivElement>(null);
  // Another filter starts at the newest row: a list left scrolled to the end of the last one would
  // ask for a second page at once.
  // biome-ignore lint/correctness/useExhaustiveDependencies: each new filter scrolls to the top
  useEffect(() => {
    scroller.current?.scrollTo(0, 0);
  }, [filter]);
  // The next page is asked for when the end of the list scrolls into view (and by the button).
  useEffect(() => {
    if (!end.current || !pages.more || pages.loading) return;
    const seen = new IntersectionObserver((xs) => xs.some((x) => x.isIntersecting) && more(), {
      root: scroller.current,
      rootMargin: '200px',
    });
    seen.observe(end.current);
    return () => seen.disconnect();
  }, [pages.more, pages.loading, more]);
  return (
    <div className="tl-scroll" ref={scroller} data-testid="timeline-scroll">
      {pages.failure && <p className="refusal">{pages.failure}</p>}
      {rows.length === 0 && !pages.loading && !pages.failure && <p className="empty">No event matches.</p>}
      <ol className="tl-rows" data-rows={rows.length}>
        {rows.map((e) => (
          <Row key={e.seq} e={e} live={e.seq > pages.top} />
        ))}
      </ol>
      <div className="tl-end" ref={end}>
        {pages.loading ? (
          <span className="muted">reading the log…</span>
        ) : pages.more ? (
          <button type="button" data-testid="timeline-more" onClick={more}>
            Older events
          </button>
        ) : rows.length > 0 ? (
          <span className="muted">no older events</span>
        ) : null}
      </div>
    </div>
  );
}

const memberOf = (seat: string) => seat.slice(0, seat.lastIndexOf('@'));

/** Memoised: a pushed event re-renders the new row, not the hundreds already read. */
const Row = memo(function Row({ e, live }: { e: EventRow; live: boolean }) {
  const group = timelineKindOf(e.kind);
  const at = new Date(e.at);
  return (
    <li
      className={`tl-row g-${group ?? 'other'}${live ? ' live' : ''}`}
      data-timeline-row={e.seq}
      data-kind={group ?? 'other'}
      data-seat={e.seat ?? ''}
    >
      <time dateTime={at.toISOString()} title={at.toLocaleString()}>
        {at.toLocaleTimeString()}
      </time>
      <span className={`tl-kind g-${group ?? 'other'}`}>{group ?? 'other'}</span>
      {e.seat ? (
        <button
          type="button"
          className="link tl-seat"
          title={`Open ${e.seat} in the grid`}
          onClick={() => openInGrid(e.seat!)}
        >
          {memberOf(e.seat)}
        </button>
      ) : (
        <span className="tl-seat muted">rig</span>
      )}
      <span className="tl-what">{describeEvent(e)}</span>
    </li>
  );
});
