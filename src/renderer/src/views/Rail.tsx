import { useVirtualizer } from '@tanstack/react-virtual';
import { type KeyboardEvent, memo, type RefObject, useEffect, useLayoutEffect, useMemo, useRef, useState } from 'react';
import { CONTEXT_HIGH_PCT, type PsRow, type Topology } from '../../../shared/contract';
import { openInGrid, pin, showView } from '../state/actions';
import { useClock } from '../state/clock';
import { visibleSlots } from '../state/grid';
import { custodyText, STATE_LABEL, since, stateWord, waitReason } from '../state/seat-state';
import { openDecisionFor, useWindow } from '../state/store';
import { ChangesBadge, ChangesRisk, WorktreeMark } from './changes/ChangesBadge';
import { openChanges } from './changes/open';
import { compact } from './usage/format';
import { type RailItem, type RowModel, railItems, runsBy, stepSeat } from './rail-items';

function useRows(topology: Topology): RowModel[] {
  const seats = useWindow((s) => s.seats);
  const decisions = useWindow((s) => s.decisions);
  const seenAt = useWindow((s) => s.seenAt);
  const changed = useWindow((s) => s.stateSeen);
  // The models as last built: one whose seat has not changed is kept, so its row (memoised) is not drawn again.
  const last = useRef(new Map<string, RowModel>());
  return useMemo(() => {
    const next = new Map<string, RowModel>();
    const rows = topology.rigs.flatMap((rig) =>
      rig.pods.flatMap((pod) =>
        pod.seats.map((s) => {
          const row = seats[s.seat];
          const m: RowModel = {
            seat: s.seat,
            member: s.member,
            rig: rig.name,
            pod: pod.id,
            host: row?.host ?? 'local',
            runtime: s.runtime,
            word: stateWord(row, !!openDecisionFor(decisions, s.seat)),
            unread: (changed[s.seat]?.at ?? 0) > (seenAt[s.seat] ?? 0),
            row,
          };
          const old = last.current.get(s.seat);
          const same = old && (Object.keys(m) as (keyof RowModel)[]).every((k) => old[k] === m[k]);
          next.set(s.seat, same ? old : m);
          return same ? old : m;
        }),
      ),
    );
    last.current = next;
    return rows;
  }, [topology, seats, decisions, seenAt, changed]);
}

/**
 * How long a seat has been in its state, on the window's one 5 s clock: the label subscribes to its
 * words, so a tick that leaves them the same ("12 min") neither renders nor paints it.
 */
function SinceLabel({ at }: { at: number | undefined }) {
  const text = useClock((s) => since(at, Math.max(s.now, at ?? 0)));
  return (
    <span className="since" title="time in this state">
      {text}
    </span>
  );
}

/** A heading's or a row's height before it is measured (a row with a usage line is taller). */
const estimate = (it: RailItem | undefined) => (it?.kind === 'seat' ? 44 : it?.kind === 'host' ? 24 : 22);

/**
 * The seat rail: every seat at a glance, grouped, what needs you first. Arrow keys move, Enter opens.
 * A virtual list (@tanstack/react-virtual): only the lines in view (and a screen's worth either
 * side) are in the DOM, in their host, rig and pod sections, so 200 seats cost what 40 do. The
 * arrow keys, the focused seat and the palette's jumps scroll the row they reach into view.
 */
export function Rail() {
  const topology = useWindow((s) => s.topology);
  const filter = useWindow((s) => s.filter);
  const all = useRows(topology);
  const rows = useMemo(() => (filter ? all.filter((r) => r.word === filter) : all), [all, filter]);
  const items = useMemo(() => railItems(rows), [rows]);
  const box = useRef<HTMLElement>(null);
  const list = useRef<HTMLDivElement>(null);
  const margin = useListMargin(box, list, !!filter);
  const v = useVirtualizer<HTMLElement, HTMLElement>({
    count: items.length,
    getScrollElement: () => box.current,
    estimateSize: (i) => estimate(items[i]),
    getItemKey: (i) => items[i]?.key ?? i,
    overscan: OVERSCAN,
    scrollMargin: margin,
    initialRect: { width: 280, height: typeof window === 'undefined' ? 800 : window.innerHeight },
  });
  const focusAfter = useRowFocus(box, v, items);
  useFollowFocused(box, v, items);
  const onKey = (e: KeyboardEvent<HTMLElement>) => {
    if (e.key !== 'ArrowDown' && e.key !== 'ArrowUp') return;
    const from = (document.activeElement as HTMLElement | null)?.getAttribute('data-seat-row') ?? undefined;
    const to = stepSeat(items, from, e.key === 'ArrowDown' ? 1 : -1);
    if (to !== undefined) focusAfter(to);
    e.preventDefault();
  };
  const shown = v.getVirtualItems();
  const top = (shown[0]?.start ?? margin) - margin;
  const bottom = v.getTotalSize() - ((shown.at(-1)?.end ?? margin) - margin);
  const lines = shown.flatMap((x) => (items[x.index] ? [{ it: items[x.index]!, index: x.index }] : []));
  return (
    <aside className="rail" aria-label="seats" onKeyDown={onKey} ref={box}>
      {filter && (
        <p className="filter-note">
          Showing seats that are {STATE_LABEL[filter]} ({rows.length}).{' '}
          <button type="button" className="link" onClick={() => useWindow.setState({ filter: undefined })}>
            Show all
          </button>
        </p>
      )}
      {all.length > 0 && rows.length === 0 && <p className="empty">No seat is {STATE_LABEL[filter!]} now.</p>}
      <div ref={list} style={{ paddingTop: top, paddingBottom: Math.max(0, bottom) }}>
        {runsBy(lines, (l) => l.it.host).map((h) => (
          <section key={h.key} className="host-group" data-rail-host={h.key}>
            {runsBy(h.items, (l) => l.it.rig).map((r) => (
              <RigLines key={r.key || ' host'} lines={r.items} measure={v.measureElement} />
            ))}
          </section>
        ))}
      </div>
    </aside>
  );
}

type Line = { it: RailItem; index: number };
/** The rows kept either side of the ones in view: a screen's worth, so a short jump needs no render first. */
const OVERSCAN = 12;

/** A rig's lines on screen: its heading (when in view), then its pods' headings and rows in their sections. */
function RigLines({ lines, measure }: { lines: Line[]; measure: (el: HTMLElement | null) => void }) {
  const head = (l: Line, Tag: 'h2' | 'h3' | 'h4', cls: string, text: string) => (
    <Tag key={l.it.key} className={cls} data-index={l.index} ref={measure}>
      {text}
    </Tag>
  );
  const rig = lines[0]!.it.rig;
  return (
    <>
      {lines
        .filter((l) => l.it.kind === 'host')
        .map((l) => head(l, 'h2', 'group host-name', l.it.host === 'local' ? 'this machine' : l.it.host))}
      {rig && (
        <section className="rig-group" data-rail-rig={rig}>
          {lines.filter((l) => l.it.kind === 'rig').map((l) => head(l, 'h3', 'group rig', rig))}
          {runsBy(
            lines.filter((l) => l.it.kind === 'pod' || l.it.kind === 'seat'),
            (l) => l.it.pod,
          ).map((p) => (
            <section key={p.key} className="pod-group" data-rail-pod={p.key}>
              {p.items.filter((l) => l.it.kind === 'pod').map((l) => head(l, 'h4', 'group pod', l.it.pod))}
              <ul>
                {p.items.map((l) =>
                  l.it.kind === 'seat' ? (
                    <SeatRow
                      key={l.it.key}
                      m={l.it.m}
                      index={l.index}
                      pos={l.it.pos}
                      size={l.it.size}
                      measure={measure}
                    />
                  ) : null,
                )}
              </ul>
            </section>
          ))}
        </section>
      )}
    </>
  );
}

/** Where the list starts inside the rail (below the filter note): the virtual list's scroll margin. */
function useListMargin(box: RefObject<HTMLElement | null>, list: RefObject<HTMLElement | null>, dep: boolean): number {
  const [margin, setMargin] = useState(0);
  // biome-ignore lint/correctness/useExhaustiveDependencies: measured again when the note comes or goes
  useLayoutEffect(() => {
    const b = box.current;
    const l = list.current;
    if (!b || !l) return;
    setMargin(Math.round(l.getBoundingClientRect().top - b.getBoundingClientRect().top + b.scrollTop));
  }, [dep, box, list]);
  return margin;
}

type RailVirtualizer = ReturnType<typeof useVirtualizer<HTMLElement, HTMLElement>>;

const rowAt = (box: RefObject<HTMLElement | null>, seat: string) =>
  box.current?.querySelector<HTMLElement>(`[data-seat-row="${CSS.escape(seat)}"]`) ?? null;

/**
 * Moves the keyboard to the row at `index`: at once when it is in the DOM, else once the list has
 * scrolled to it and drawn it (a row far off screen is not in the DOM until then).
 */
function useRowFocus(box: RefObject<HTMLElement | null>, v: RailVirtualizer, items: RailItem[]) {
  const pending = useRef<string | undefined>(undefined);
  useEffect(() => {
    const seat = pending.current;
    const el = seat ? rowAt(box, seat) : null;
    if (!el) return;
    pending.current = undefined;
    el.focus();
  });
  return (index: number) => {
    const it = items[index];
    if (it?.kind !== 'seat') return;
    const el = rowAt(box, it.m.seat);
    if (el) return el.focus();
    pending.current = it.m.seat;
    v.scrollToIndex(index, { align: 'auto' });
  };
}

/** The focused seat's row is scrolled into view when the focus moves to another seat (Ctrl+J, the palette, a link). */
function useFollowFocused(box: RefObject<HTMLElement | null>, v: RailVirtualizer, items: RailItem[]) {
  const focused = useWindow((s) => visibleSlots(s.layout)[s.layout.focus] ?? undefined);
  const latest = useRef(items);
  latest.current = items;
  // biome-ignore lint/correctness/useExhaustiveDependencies: only a change of focused seat scrolls, never a reorder
  useEffect(() => {
    if (!focused) return;
    const index = latest.current.findIndex((it) => it.kind === 'seat' && it.m.seat === focused);
    if (index < 0) return;
    const el = rowAt(box, focused);
    const b = box.current?.getBoundingClientRect();
    const r = el?.getBoundingClientRect();
    if (b && r && r.top >= b.top && r.bottom <= b.bottom) return;
    v.scrollToIndex(index, { align: 'auto' });
  }, [focused]);
}

/**
 * The seat's context share as a small meter (its percent the `data-pct` of `[data-context]`) and
 * its tokens, where its runtime records them; past the mark the row says so in words ("nearly
 * full"), not only in colour. A window that is not known draws an empty meter whose title says
 * why, never a guessed share. Exact counts are in the titles.
 */
function UsageLine({ seat, row }: { seat: string; row: PsRow | undefined }) {
  const pct = row?.contextPct;
  const tokens = row?.tokensIn !== undefined && row.tokensOut !== undefined;
  if (pct === undefined && !tokens) return null;
  const high = pct !== undefined && pct > CONTEXT_HIGH_PCT;
  return (
    <div className="usage-line">
      {pct !== undefined ? (
        <span
          className={`context${high ? ' high' : ''}`}
          data-context={seat}
          data-pct={pct}
          title={`context: ${pct}% of the window the last call held${row?.contextTokens !== undefined && row.contextWindow !== undefined ? ` (${row.contextTokens.toLocaleString('en')} of ${row.contextWindow.toLocaleString('en')}, window from ${row.contextSource ?? 'records'})` : ''}`}
        >
          <span className="ctx-bar" aria-hidden="true">
            <span className="ctx-fill" style={{ width: `${Math.min(100, pct)}%` }} />
          </span>
          context {Math.round(pct)}%{high && <strong className="context-mark"> nearly full</strong>}
        </span>
      ) : (
        <span
          className="context unknown"
          data-context={seat}
          title={`context share not known: ${row?.contextWhy ?? 'the runtime records no window for this model'}`}
        >
          <span className="ctx-bar" aria-hidden="true" />
        </span>
      )}
      {tokens && (
        <span
          className="tokens"
          title={`${row.tokensIn!.toLocaleString('en')} tokens in, ${row.tokensOut!.toLocaleString('en')} out`}
        >
          {compact(row.tokensIn!)} in · {compact(row.tokensOut!)} out
        </span>
      )}
    </div>
  );
}

/** What the row's accessible name says of the context, when known. */
function contextWords(row: PsRow | undefined): string {
  const pct = row?.contextPct;
  if (pct === undefined) return '';
  return `, context ${Math.round(pct)}%${pct > CONTEXT_HIGH_PCT ? ' nearly full' : ''}`;
}

/** U on a seat's row: its rig's Usage view. */
function openUsage(rig: string): void {
  useWindow.setState({ viewRig: rig });
  showView('usage');
}

const SeatRow = memo(function SeatRow({
  m,
  index,
  pos,
  size,
  measure,
}: {
  m: RowModel;
  index: number;
  pos: number;
  size: number;
  measure: (el: HTMLElement | null) => void;
}) {
  const prompt = useWindow((s) => s.prompts.find((p) => p.seat === m.seat));
  const decision = useWindow((s) => openDecisionFor(s.decisions, m.seat));
  const shown = useWindow((s) => visibleSlots(s.layout).includes(m.seat));
  const focused = useWindow((s) => visibleSlots(s.layout)[s.layout.focus] === m.seat);
  const seen = useWindow((s) => s.stateSeen[m.seat]?.at);
  const reason = waitReason(m.row, prompt, decision?.reason);
  const custody = custodyText(m.row);
  return (
    <li data-index={index} ref={measure} aria-posinset={pos} aria-setsize={size}>
      {/* biome-ignore lint/a11y/useSemanticElements: the row holds its own pin button, and a button cannot hold another */}
      <div
        role="button"
        tabIndex={0}
        className={`seat-row s-${m.word}${m.unread ? ' unread' : ''}${focused ? ' focused' : shown ? ' shown' : ''}`}
        data-seat-row={m.seat}
        data-state={m.word}
        data-context-pct={m.row?.contextPct}
        data-tokens-in={m.row?.tokensIn}
        data-tokens-out={m.row?.tokensOut}
        aria-label={`${m.seat}, ${STATE_LABEL[m.word]}${reason ? `, ${reason}` : ''}${contextWords(m.row)}${m.unread ? ', unread' : ''}`}
        onClick={() => openInGrid(m.seat)}
        onKeyDown={(e) => {
          if (e.key === 'Enter') openInGrid(m.seat);
          else if (e.key === 'p') pin(m.seat);
          else if (e.key === 'c') openChanges(m.seat);
          else if (e.key === 'u') openUsage(m.rig);
        }}
      >
        <div className="line1">
          <span className="dot" aria-hidden="true" />
          <span className="member">{m.member}</span>
          <span className="state" data-testid="badge">
            {STATE_LABEL[m.word]}
          </span>
          {m.unread && (
            <span className="unread-mark" title="changed since you last looked">
              new
            </span>
          )}
          <SinceLabel at={m.row?.stateSince ?? seen} />
          <ChangesBadge seat={m.seat} />
        </div>
        <div className="line2">
          <span className="runtime">{m.runtime}</span>
          <WorktreeMark seat={m.seat} />
          {reason && <span className="reason">{reason}</span>}
          {custody && (
            <span className={`custody${custody.startsWith('live elsewhere') ? ' elsewhere' : ''}`}>{custody}</span>
          )}
          <ChangesRisk seat={m.seat} />
        </div>
        <UsageLine seat={m.seat} row={m.row} />
      </div>
      <button
        type="button"
        className="row-pin"
        title="Pin to the focused slot"
        aria-label={`Pin ${m.seat}`}
        onClick={() => pin(m.seat)}
      >
        ⊕
      </button>
    </li>
  );
});
