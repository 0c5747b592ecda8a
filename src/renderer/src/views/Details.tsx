import { useEffect, useState } from 'react';
import type { EventRow, Topology } from '../../../shared/contract';
import { call, copyAttach } from '../state/actions';
import { visibleSlots } from '../state/grid';
import { custodyText, STATE_LABEL, stateWord } from '../state/seat-state';
import { openDecisionFor, useWindow } from '../state/store';
import { describeEvent } from '../../../shared/events-text';
import { SeatQueue } from './SeatQueue';
import { changesWords } from './changes/ChangesBadge';
import { seatActions } from './seat-actions';

const shellQuote = (a: string) => (/^[\w@%+=:,./-]+$/.test(a) ? a : `'${a.replace(/'/g, `'\\''`)}'`);

/** The focused seat: its facts, its timeline from the event log (live), its queue. */
export function DetailsPanel() {
  const seat = useWindow((s) => visibleSlots(s.layout)[s.layout.focus]);
  if (!seat)
    return (
      <section className="panel details" aria-label="Seat details">
        <h2>Seat details</h2>
        <p className="empty">Focus a pane (click it, or Ctrl+1…9) to see its seat here.</p>
      </section>
    );
  return <SeatDetails key={seat} seat={seat} />;
}

function SeatDetails({ seat }: { seat: string }) {
  const row = useWindow((s) => s.seats[seat]);
  const decision = useWindow((s) => openDecisionFor(s.decisions, seat));
  const word = stateWord(row, !!decision);
  const edges = useWindow((s) => edgesOf(s.topology, seat));
  const attach = row?.attach?.map(shellQuote).join(' ');
  const facts: [string, string | number | undefined][] = [
    ['state', `${STATE_LABEL[word]}${row?.needsInput ? ` (${row.needsInput.replace(/_/g, ' ')})` : ''}`],
    ['runtime', row?.runtime],
    ['host', `${row?.host ?? 'local'}${row?.reason === 'host_unreachable' ? ' (unreachable)' : ''}`],
    ['conversation', row?.conversationId],
    ['writer', custodyText(row)],
    ['cwd', row?.cwd],
    ['pid', row?.pid],
    ['pane', row?.paneId ? `${row.paneId}${row.server ? ` on ${row.server}` : ''}` : undefined],
    ['edges', edges || undefined],
    ['worktree', row?.worktree?.path],
    ['branch', row?.worktree ? `${row.worktree.branch} (from ${row.worktree.base})` : undefined],
    ['changes', row?.changes ? changesWords(row.changes) : undefined],
  ];
  return (
    <section className="panel details" aria-label="Seat details" data-details={seat}>
      <h2>{seat}</h2>
      <dl className="facts">
        {facts.map(([k, v]) => (
          <div key={k}>
            <dt>{k}</dt>
            <dd data-fact={k}>{v ?? '—'}</dd>
          </div>
        ))}
        <div>
          <dt>attach</dt>
          <dd data-fact="attach">
            {attach ? (
              <>
                <code>{attach}</code>{' '}
                <button type="button" className="link" onClick={() => void copyAttach(seat)}>
                  copy
                </button>
              </>
            ) : (
              '—'
            )}
          </dd>
        </div>
      </dl>
      <div className="buttons wrap">
        {seatActions(seat, row).map((a) => (
          <button key={a.id} type="button" className={a.danger ? 'danger' : undefined} onClick={a.run}>
            {a.label}
          </button>
        ))}
      </div>
      <Timeline seat={seat} />
      <SeatQueue seat={seat} />
    </section>
  );
}

/** "delegates to worker1, worker2; escalates to lead": the rig's edges from and to this seat. */
function edgesOf(t: Topology, seat: string): string {
  const at = seat.lastIndexOf('@');
  const member = seat.slice(0, at);
  const rig = t.rigs.find((r) => r.name === seat.slice(at + 1));
  if (!rig) return '';
  const out = new Map<string, string[]>();
  for (const e of rig.edges) {
    const [key, other] =
      e.from === member
        ? [e.kind.replace(/_/g, ' '), e.to]
        : e.to === member
          ? [`${e.kind.replace(/_/g, ' ')} (from)`, e.from]
          : [];
    if (key && other) out.set(key, [...(out.get(key) ?? []), other]);
  }
  return [...out].map(([k, v]) => `${k} ${v.join(', ')}`).join('; ');
}

/** The seat's last events from the log, then every new one as it is pushed. */
function Timeline({ seat }: { seat: string }) {
  const [past, setPast] = useState<EventRow[]>([]);
  const live = useWindow((s) => s.events);
  useEffect(() => {
    let on = true;
    void call('workspace.timeline', { seat, limit: 80 }, `timeline of ${seat}`).then((r) => {
      if (on && r?.ok) setPast(r.events);
    });
    return () => {
      on = false;
    };
  }, [seat]);
  const after = past.at(-1)?.seq ?? 0;
  const rows = [...past, ...live.filter((e) => e.seat === seat && e.seq > after && !e.kind.startsWith('fence.'))];
  return (
    <section className="timeline" aria-label={`timeline of ${seat}`}>
      <h3>Timeline</h3>
      {rows.length === 0 ? (
        <p className="empty">Nothing recorded yet.</p>
      ) : (
        <ol reversed>
          {rows
            .slice(-80)
            .reverse()
            .map((e) => (
              <li key={e.seq} data-event={e.kind}>
                <time dateTime={new Date(e.at).toISOString()}>{new Date(e.at).toLocaleTimeString()}</time>{' '}
                <span className="what">{describeEvent(e)}</span>
              </li>
            ))}
        </ol>
      )}
    </section>
  );
}
