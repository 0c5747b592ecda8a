import type { ClientMethod, ClientParams } from '../../../shared/contract';
import { useState } from 'react';
import { badgeOf, useApp } from '../store';
import type { FrameRouter } from '../terminal/frames';
import { SeatTerminal } from '../terminal/SeatTerminal';
import { SeatQueue } from './SeatQueue';
import type { Transport } from '../transport';

const shellQuote = (a: string) => (/^[\w@%+=:,./-]+$/.test(a) ? a : `'${a.replace(/'/g, `'\\''`)}'`);

/** One seat: its live terminal, what the engine knows about it, and its actions. */
export function SeatPage({ seat, transport, frames }: { seat: string; transport: Transport; frames: FrameRouter }) {
  const row = useApp((s) => s.seats[seat]);
  const known = useApp((s) => s.topology.rigs.some((r) => r.pods.some((p) => p.seats.some((x) => x.seat === seat))));
  const [text, setText] = useState('');
  const [note, setNote] = useState('');
  const badge = badgeOf(row);
  const attach = row?.attach ? row.attach.map(shellQuote).join(' ') : undefined;
  const act = async <M extends ClientMethod>(method: M, params: ClientParams<M>) => {
    const r = await transport.request(method, params);
    setNote(r.ok ? `${method}: done` : `${method}: ${r.code}: ${r.message}`);
  };
  if (!known)
    return (
      <p className="empty" role="alert">
        No seat named {seat}.
      </p>
    );
  return (
    <div className="seat-page" data-seat-page={seat}>
      <header>
        <h2>{seat}</h2>
        <span className={`badge ${badge.tone}`}>{badge.label}</span>
      </header>
      <dl className="facts">
        <dt>runtime</dt>
        <dd>{row?.runtime ?? '—'}</dd>
        <dt>host</dt>
        <dd data-testid="seat-host">
          {row?.host ?? 'local'}
          {row?.reason === 'host_unreachable' ? ' (unreachable)' : ''}
        </dd>
        <dt>conversation</dt>
        <dd>{row?.conversationId ?? '—'}</dd>
        <dt>cwd</dt>
        <dd>{row?.cwd ?? '—'}</dd>
        <dt>pid</dt>
        <dd>{row?.pid ?? '—'}</dd>
        <dt>pane</dt>
        <dd>{row?.paneId ?? '—'}</dd>
      </dl>
      <div className="actions">
        {attach && (
          <button
            onClick={() =>
              void navigator.clipboard?.writeText(attach).then(
                () => setNote('attach command copied'),
                () => setNote(attach),
              )
            }
            title={attach}
          >
            Copy attach command
          </button>
        )}
        {row?.state === 'running' ? (
          <button className="danger" onClick={() => void act('stop', { seat })}>
            Stop
          </button>
        ) : (
          <button onClick={() => void act('launch', { seat })}>Launch</button>
        )}
        <form onSubmit={(e) => (e.preventDefault(), void act('send', { seat, text }).then(() => setText('')))}>
          <input
            aria-label="text to send"
            placeholder="send to the agent (safe delivery)"
            value={text}
            onChange={(e) => setText(e.target.value)}
          />
          <button type="submit" disabled={!text}>
            Send
          </button>
        </form>
        <span className="note" role="status">
          {note}
        </span>
      </div>
      {row?.state === 'running' ? (
        <SeatTerminal seat={seat} transport={transport} frames={frames} />
      ) : (
        <p className="empty">Not running.</p>
      )}
      <SeatQueue seat={seat} transport={transport} />
    </div>
  );
}
