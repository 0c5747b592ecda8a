import { useEffect, useState } from 'react';
import { call } from '../state/actions';
import { visibleSlots } from '../state/grid';
import { useWindow } from '../state/store';
import { connect } from '../state/sync';
import type { Transport } from '../transport';
import { DecisionCard, PromptCard } from './Decisions';
import { EndedTurns } from './EndedTurns';
import { Notes } from './Notes';
import { Rail } from './Rail';
import { ReplyBox } from './ReplyBox';

/** How often a seat's last screen is read again while it is shown. */
const SCREEN_EVERY_MS = 1500;
/** The screen's last lines: what fits a phone without a long scroll. */
const SCREEN_LINES = 40;

/**
 * The window on a phone (narrow screens): one column, what needs the person first as the same
 * cards as Decisions (one tap answers), then the chosen seat's last screen with a reply box, then
 * the rail to choose a seat. No terminal here: a live xterm would resize the seat's pane to a
 * phone's width under the desktop's feet, so the screen is read (capture) and shown as text.
 */
export function PhoneApp({ transport }: { transport: Transport }) {
  useEffect(() => connect(transport), [transport]);
  const prompts = useWindow((s) => s.prompts);
  const decisions = useWindow((s) => s.decisions);
  const open = decisions.filter((d) => !d.state || d.state === 'open');
  const status = useWindow((s) => s.status);
  const seat = useWindow((s) => visibleSlots(s.layout)[s.layout.focus]);
  const count = prompts.length + open.length;
  return (
    <div className="phone" data-layout="phone">
      <header className="phone-top">
        <h1>Rigdesk</h1>
        <span className={`phone-count${count ? ' needs' : ''}`} data-testid="phone-needs">
          {count ? `${count} need${count === 1 ? 's' : ''} you` : 'nothing waits'}
        </span>
        {status !== 'open' && <span className="phone-status">{status}</span>}
      </header>
      <section className="phone-needs" aria-label="Needs you">
        {count === 0 && <p className="empty">Nothing waits for you.</p>}
        {prompts.map((p) => (
          <PromptCard key={`${p.seat} ${p.fingerprint ?? p.reason}`} p={p} />
        ))}
        {open.map((d) => (
          <DecisionCard key={d.id} d={d} />
        ))}
        <EndedTurns />
      </section>
      {seat && <SeatScreen seat={seat} />}
      <section className="phone-rail" aria-label="Seats list">
        <h2>Seats</h2>
        <Rail />
      </section>
      <Notes />
    </div>
  );
}

/** A seat's last screen, read again every 1.5 s while shown, and a reply box that sends safely. */
function SeatScreen({ seat }: { seat: string }) {
  const [text, setText] = useState('');
  useEffect(() => {
    let live = true;
    const read = async () => {
      const r = await call('capture', { seat, lines: SCREEN_LINES }, `${seat}'s screen`, { quiet: true });
      if (live)
        setText(r?.ok ? r.text.replace(/\s+$/, '') : `(no screen: ${r && !r.ok ? r.message : 'not connected'})`);
    };
    void read();
    const t = setInterval(() => void read(), SCREEN_EVERY_MS);
    return () => {
      live = false;
      clearInterval(t);
    };
  }, [seat]);
  return (
    <section className="phone-seat" aria-label={`${seat}'s screen`} data-phone-seat={seat}>
      <h2>{seat}</h2>
      <pre className="phone-screen" data-testid="phone-screen">
        {text}
      </pre>
      <ReplyBox seat={seat} className="phone-reply" placeholder={`Reply to ${seat}`} />
    </section>
  );
}
