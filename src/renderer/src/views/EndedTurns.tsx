import { useEffect, useState } from 'react';
import { useShallow } from 'zustand/react/shallow';
import { call, focusSeat } from '../state/actions';
import { useWindow, type WindowState } from '../state/store';
import { ReplyBox } from './ReplyBox';

/**
 * Seats that finished a turn while the person looked elsewhere: the first lines of the reply, a
 * reply box (safe send, as `rigdesk send`) and Dismiss. A seat on screen is seen as it finishes,
 * so only the others come here; answering or dismissing marks it seen.
 */
export function EndedTurns() {
  const seats = useWindow(useShallow(endedSeats));
  if (seats.length === 0) return null;
  return (
    <section className="ended-turns" aria-label="finished turns">
      <h3>Finished since you looked</h3>
      {seats.map((seat) => (
        <EndedCard key={seat} seat={seat} />
      ))}
    </section>
  );
}

/** Idle seats whose last turn ended after the person last saw them, and that wait for nothing else. */
export function endedSeats(s: WindowState): string[] {
  const waiting = new Set(s.prompts.map((p) => p.seat));
  return Object.values(s.seats)
    .filter(
      (r) => r.activity === 'idle' && !waiting.has(r.seat) && (s.turnEnded[r.seat] ?? 0) > (s.seenAt[r.seat] ?? 0),
    )
    .map((r) => r.seat)
    .sort();
}

/** How often a shown card reads its reply again (one capture of one pane)… */
const REREAD_MS = 3000;
/**
 * …and for how long after this window saw the turn end: a card left open all day stops polling its
 * pane, and one shown again later (another view, then back) reads it once.
 */
const REREAD_FOR_MS = 30_000;

/** How long a card shown `now` reads its reply again, for a turn end this window saw at `seenEnd`. */
export function rereadFor(seenEnd: number | undefined, now: number): number {
  return Math.max(0, Math.min(REREAD_FOR_MS, (seenEnd ?? now) + REREAD_FOR_MS - now));
}

const markSeen = (seat: string) => useWindow.setState((s) => ({ seenAt: { ...s.seenAt, [seat]: Date.now() } }));

function EndedCard({ seat }: { seat: string }) {
  const ended = useWindow((s) => s.seats[seat]?.turnEndedAt);
  const seenEnd = useWindow((s) => s.turnEnded[seat]);
  const [lines, setLines] = useState<string[] | undefined>();
  // biome-ignore lint/correctness/useExhaustiveDependencies: read again when another turn ends
  useEffect(() => {
    let live = true;
    const read = () =>
      void call('seat.reply', { seat }, `the last reply of ${seat}`, { quiet: true }).then((r) => {
        if (live) setLines(r?.ok ? r.lines : []);
      });
    read();
    // The hook that ends a turn can come a moment before the agent draws its last words; once
    // they are drawn the reply does not change until the next turn ends (a new `ended`).
    const left = rereadFor(seenEnd, Date.now());
    const again = left > 0 ? setInterval(read, REREAD_MS) : undefined;
    const stop = setTimeout(() => clearInterval(again), left);
    return () => {
      live = false;
      clearInterval(again);
      clearTimeout(stop);
    };
  }, [seat, ended]);
  return (
    <article className="card ended" data-ended={seat} aria-label={`${seat} finished its turn`}>
      <h3>
        <button type="button" className="link" onClick={() => focusSeat(seat)}>
          {seat}
        </button>{' '}
        <span className="reason">finished its turn{ended ? ` at ${new Date(ended).toLocaleTimeString()}` : ''}</span>
      </h3>
      {lines === undefined ? (
        <p className="muted">reading its reply…</p>
      ) : lines.length > 0 ? (
        <pre className="evidence" data-testid="reply-lines">
          {lines.join('\n')}
        </pre>
      ) : (
        <p className="muted">Its reply is not read from this runtime's screen: open the seat to see it.</p>
      )}
      <ReplyBox
        seat={seat}
        className="reply"
        placeholder="Reply (Enter sends, Shift+Enter for a new line)"
        enterSends
        onSent={() => markSeen(seat)}
      >
        <button type="button" onClick={() => markSeen(seat)}>
          Dismiss
        </button>
      </ReplyBox>
    </article>
  );
}
