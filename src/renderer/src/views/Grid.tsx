import { useState } from 'react';
import { GRID_SLOTS } from '../../../shared/contract';
import { askNewRig, askUp, closeSlot, launch, magnify, togglePinAt } from '../state/actions';
import { visibleSlots } from '../state/grid';
import { notRunningLine, STATE_LABEL, type StateWord, stateWord } from '../state/seat-state';
import { openDecisionFor, useWindow } from '../state/store';
import type { FrameRouter } from '../terminal/frames';
import { SeatTerminal } from '../terminal/SeatTerminal';
import type { Transport } from '../transport';
import { seatActions } from './seat-actions';

/** The grid of live terminals: 1, 1x2, 2x2 or 3x3 slots, one focused, any one magnified. */
export function Grid({ transport, frames }: { transport: Transport; frames: FrameRouter }) {
  const layout = useWindow((s) => s.layout);
  const loaded = useWindow((s) => s.loaded);
  const rigs = useWindow((s) => s.topology.rigs.length);
  if (loaded && rigs === 0) return <FirstRun />;
  const slots = visibleSlots(layout);
  const magnified = layout.magnified && GRID_SLOTS[layout.grid] > 1;
  return (
    <main
      className={`grid g-${layout.grid}${magnified ? ' magnified' : ''}`}
      data-grid={layout.grid}
      aria-label="terminals"
    >
      {slots.map((seat, i) =>
        magnified && i !== layout.focus ? null : (
          <Slot
            key={seat ? `s:${seat}` : `e:${i}`}
            i={i}
            seat={seat}
            focused={i === layout.focus}
            pinned={layout.pinned[i] === true}
            transport={transport}
            frames={frames}
          />
        ),
      )}
    </main>
  );
}

interface SlotProps {
  i: number;
  seat: string | undefined;
  focused: boolean;
  pinned: boolean;
  transport: Transport;
  frames: FrameRouter;
}

function Slot(p: SlotProps) {
  const focus = () => {
    if (!p.focused) useWindow.setState((s) => ({ layout: { ...s.layout, focus: p.i } }));
  };
  if (!p.seat)
    return (
      <section
        className={`pane empty${p.focused ? ' focused' : ''}`}
        data-slot={p.i + 1}
        onMouseDown={focus}
        aria-label={`slot ${p.i + 1}, empty`}
      >
        <p>
          Slot {p.i + 1} is empty. Pick a seat in the rail, or press <kbd>Ctrl K</kbd> and type its name.
        </p>
      </section>
    );
  return <Pane {...p} seat={p.seat} onFocus={focus} />;
}

function Pane(p: SlotProps & { seat: string; onFocus: () => void }) {
  const row = useWindow((s) => s.seats[p.seat]);
  const decision = useWindow((s) => openDecisionFor(s.decisions, p.seat));
  const focusTick = useWindow((s) => s.focusTick);
  const find = useWindow((s) => s.find);
  const word = stateWord(row, !!decision);
  return (
    <section
      className={`pane s-${word}${p.focused ? ' focused' : ''}`}
      data-pane={p.seat}
      data-slot={p.i + 1}
      aria-label={`slot ${p.i + 1}: ${p.seat}`}
      onMouseDown={p.onFocus}
    >
      <PaneHead {...p} word={word} />
      {row?.state === 'running' ? (
        <SeatTerminal
          seat={p.seat}
          transport={p.transport}
          frames={p.frames}
          focused={p.focused}
          focusTick={focusTick}
          onFocus={p.onFocus}
          find={find}
          onCloseFind={() => useWindow.setState({ find: false })}
        />
      ) : (
        <NotRunning seat={p.seat} word={word} />
      )}
    </section>
  );
}

/** The pane's header: slot, seat, state, runtime, and its actions (pin, magnify, the menu). */
function PaneHead(p: SlotProps & { seat: string; onFocus: () => void; word: StateWord }) {
  const row = useWindow((s) => s.seats[p.seat]);
  const magnified = useWindow((s) => s.layout.magnified);
  const [menu, setMenu] = useState(false);
  return (
    <header className="pane-head">
      <span className="slot-n" title={`Ctrl+${p.i + 1}`}>
        {p.i + 1}
      </span>
      <span className="dot" aria-hidden="true" />
      <span className="seat-name">{p.seat}</span>
      <span className="state">{STATE_LABEL[p.word]}</span>
      <span className="runtime">{row?.runtime ?? ''}</span>
      <span className="spacer" />
      <button
        type="button"
        className={`icon${p.pinned ? ' on' : ''}`}
        aria-pressed={p.pinned}
        aria-label={p.pinned ? 'Unpin' : 'Pin'}
        title={p.pinned ? 'Pinned: stays in this slot (Ctrl+Shift+P)' : 'Pin to this slot (Ctrl+Shift+P)'}
        onClick={() => togglePinAt(p.i)}
      >
        {p.pinned ? '◉' : '○'}
      </button>
      <button
        type="button"
        className="icon"
        aria-label={magnified && p.focused ? 'Put back' : 'Magnify'}
        title="Magnify or put back (Ctrl+Shift+M)"
        onClick={() => (p.onFocus(), magnify())}
      >
        {magnified && p.focused ? '⤡' : '⤢'}
      </button>
      <div className="menu-wrap">
        <button
          type="button"
          className="icon"
          aria-label={`Actions for ${p.seat}`}
          aria-expanded={menu}
          onClick={() => setMenu(!menu)}
        >
          ⋯
        </button>
        {menu && (
          <div className="menu" role="menu" onMouseLeave={() => setMenu(false)}>
            {[...seatActions(p.seat, row), { id: 'close', label: 'Close this slot', run: () => closeSlot(p.i) }].map(
              (a) => (
                <button
                  key={a.id}
                  type="button"
                  role="menuitem"
                  className={'danger' in a && a.danger ? 'danger' : undefined}
                  onClick={() => (setMenu(false), a.run())}
                >
                  {a.label}
                </button>
              ),
            )}
          </div>
        )}
      </div>
    </header>
  );
}

/** A seat with no live session: what it is, and how to start it. */
function NotRunning({ seat, word }: { seat: string; word: StateWord }) {
  const row = useWindow((s) => s.seats[seat]);
  const decision = useWindow((s) => openDecisionFor(s.decisions, seat));
  return (
    <div className="not-running">
      <p>{notRunningLine(seat, row ? STATE_LABEL[word] : undefined, decision?.reason)}</p>
      {row && !decision && (
        <div className="buttons">
          <button type="button" onClick={() => void launch(seat)}>
            Launch
          </button>
          <button type="button" onClick={() => void launch(seat, true)}>
            Launch fresh
          </button>
        </div>
      )}
    </div>
  );
}

/** No rig yet: what to do next. */
function FirstRun() {
  const example = useWindow((s) => s.example);
  return (
    <main className="grid first-run" aria-label="no rig yet">
      <div className="card">
        <h1>No rig yet</h1>
        <p>A rig is a team of agent seats, each in its own tmux session. Start one:</p>
        <div className="buttons">
          <button type="button" className="primary" onClick={askNewRig}>
            New rig…
          </button>
          <button type="button" onClick={askUp}>
            Bring up a spec…
          </button>
          {example && (
            <button type="button" onClick={() => useWindow.setState({ dialog: { kind: 'up', path: example } })}>
              Bring up the example rig
            </button>
          )}
        </div>
        <p className="muted">
          <kbd>Ctrl K</kbd> lists every command; <kbd>?</kbd> shows the keys.
        </p>
      </div>
    </main>
  );
}
