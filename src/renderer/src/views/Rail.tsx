import type { KeyboardEvent } from 'react';
import { CONTEXT_HIGH_PCT, type PsRow, type Topology } from '../../../shared/contract';
import { openInGrid, pin } from '../state/actions';
import { useClock } from '../state/clock';
import { visibleSlots } from '../state/grid';
import {
  attentionOrder,
  attentionRank,
  custodyText,
  STATE_LABEL,
  type StateWord,
  since,
  stateWord,
  waitReason,
} from '../state/seat-state';
import { openDecisionFor, useWindow } from '../state/store';
import { ChangesBadge } from './changes/ChangesBadge';

interface RowModel {
  seat: string;
  member: string;
  rig: string;
  pod: string;
  host: string;
  runtime: string;
  word: StateWord;
  unread: boolean;
  row: PsRow | undefined;
}

/** host → rig → pod, in the spec's order; rows within a pod in the attention order. */
function groups(
  rows: RowModel[],
): { host: string; rigs: { rig: string; pods: { pod: string; rows: RowModel[] }[] }[] }[] {
  const hosts = new Map<string, Map<string, Map<string, RowModel[]>>>();
  for (const r of rows) {
    const rigs = hosts.get(r.host) ?? new Map();
    hosts.set(r.host, rigs);
    const pods = rigs.get(r.rig) ?? new Map();
    rigs.set(r.rig, pods);
    pods.set(r.pod, [...(pods.get(r.pod) ?? []), r]);
  }
  const order = [...hosts.keys()].sort((a, b) => (a === 'local' ? -1 : b === 'local' ? 1 : a.localeCompare(b)));
  return order.map((host) => ({
    host,
    rigs: [...hosts.get(host)!].map(([rig, pods]) => ({
      rig,
      pods: [...pods].map(([pod, list]) => ({
        pod,
        rows: attentionOrder(list, (x) => attentionRank(x.word, x.unread)),
      })),
    })),
  }));
}

function useRows(topology: Topology): RowModel[] {
  const seats = useWindow((s) => s.seats);
  const decisions = useWindow((s) => s.decisions);
  const seenAt = useWindow((s) => s.seenAt);
  const changed = useWindow((s) => s.stateSeen);
  return topology.rigs.flatMap((rig) =>
    rig.pods.flatMap((pod) =>
      pod.seats.map((s) => {
        const row = seats[s.seat];
        return {
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
      }),
    ),
  );
}

/** How long a seat has been in its state, on the window's one 5 s clock. */
function SinceLabel({ at }: { at: number | undefined }) {
  const now = useClock((s) => s.now);
  return (
    <span className="since" title="time in this state">
      {since(at, Math.max(now, at ?? 0))}
    </span>
  );
}

/** The seat rail: every seat at a glance, grouped, what needs you first. Arrow keys move, Enter opens. */
export function Rail() {
  const topology = useWindow((s) => s.topology);
  const filter = useWindow((s) => s.filter);
  const all = useRows(topology);
  const rows = filter ? all.filter((r) => r.word === filter) : all;
  const onKey = (e: KeyboardEvent<HTMLElement>) => {
    if (e.key !== 'ArrowDown' && e.key !== 'ArrowUp') return;
    const list = [...e.currentTarget.querySelectorAll<HTMLElement>('[data-seat-row]')];
    const i = list.indexOf(document.activeElement as HTMLElement);
    list[(i + (e.key === 'ArrowDown' ? 1 : list.length - 1)) % list.length]?.focus();
    e.preventDefault();
  };
  return (
    <aside className="rail" aria-label="seats" onKeyDown={onKey}>
      {filter && (
        <p className="filter-note">
          Showing seats that are {STATE_LABEL[filter]} ({rows.length}).{' '}
          <button type="button" className="link" onClick={() => useWindow.setState({ filter: undefined })}>
            Show all
          </button>
        </p>
      )}
      {all.length > 0 && rows.length === 0 && <p className="empty">No seat is {STATE_LABEL[filter!]} now.</p>}
      {groups(rows).map((h) => (
        <section key={h.host} className="host-group" data-rail-host={h.host}>
          <h2 className="group host-name">{h.host === 'local' ? 'this machine' : h.host}</h2>
          {h.rigs.map((r) => (
            <section key={r.rig} className="rig-group" data-rail-rig={r.rig}>
              <h3 className="group rig">{r.rig}</h3>
              {r.pods.map((p) => (
                <section key={p.pod} className="pod-group" data-rail-pod={p.pod}>
                  {(r.pods.length > 1 || p.pod !== 'team') && <h4 className="group pod">{p.pod}</h4>}
                  <ul>
                    {p.rows.map((m) => (
                      <SeatRow key={m.seat} m={m} />
                    ))}
                  </ul>
                </section>
              ))}
            </section>
          ))}
        </section>
      ))}
    </aside>
  );
}

/** A token count in a few characters: 417, 52.3k, 1.2M. */
function compact(n: number): string {
  if (n < 1000) return String(n);
  if (n < 999_500) return `${(n / 1000).toFixed(n < 10_000 ? 1 : 0).replace(/\.0$/, '')}k`;
  return `${(n / 1_000_000).toFixed(1).replace(/\.0$/, '')}M`;
}

/**
 * The seat's context share and tokens, where its runtime records them; past the mark the row says
 * so in words ("nearly full"), not only in colour. Exact counts are in the title.
 */
function UsageLine({ row }: { row: PsRow | undefined }) {
  const pct = row?.contextPct;
  const tokens = row?.tokensIn !== undefined && row.tokensOut !== undefined;
  if (pct === undefined && !tokens) return null;
  const high = pct !== undefined && pct > CONTEXT_HIGH_PCT;
  return (
    <div className="usage-line">
      {pct !== undefined && (
        <span className={`context${high ? ' high' : ''}`} title="share of the context window the last call held">
          context {Math.round(pct)}%{high && <strong className="context-mark"> nearly full</strong>}
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

function SeatRow({ m }: { m: RowModel }) {
  const prompt = useWindow((s) => s.prompts.find((p) => p.seat === m.seat));
  const decision = useWindow((s) => openDecisionFor(s.decisions, m.seat));
  const shown = useWindow((s) => visibleSlots(s.layout).includes(m.seat));
  const focused = useWindow((s) => visibleSlots(s.layout)[s.layout.focus] === m.seat);
  const seen = useWindow((s) => s.stateSeen[m.seat]?.at);
  const reason = waitReason(m.row, prompt, decision?.reason);
  const custody = custodyText(m.row);
  return (
    <li>
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
          {reason && <span className="reason">{reason}</span>}
          {custody && (
            <span className={`custody${custody.startsWith('live elsewhere') ? ' elsewhere' : ''}`}>{custody}</span>
          )}
        </div>
        <UsageLine row={m.row} />
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
}
