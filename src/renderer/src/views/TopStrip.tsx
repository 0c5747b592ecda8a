import { allSeats, openDecisionFor, useWindow } from '../state/store';
import { COUNT_LABEL, STATE_WORDS, type StateWord, stateWord } from '../state/seat-state';
import { showPanel } from '../state/actions';
import { Bell } from './Bell';

/** Seats per state word, over every recorded seat: the counts add up to the number of seats. */
export function useCounts(): Record<StateWord, number> {
  const topology = useWindow((s) => s.topology);
  const seats = useWindow((s) => s.seats);
  const decisions = useWindow((s) => s.decisions);
  const counts: Record<StateWord, number> = {
    needs_input: 0,
    exited: 0,
    starting: 0,
    working: 0,
    idle: 0,
    unknown: 0,
    stopped: 0,
  };
  for (const seat of allSeats(topology)) counts[stateWord(seats[seat], !!openDecisionFor(decisions, seat))]++;
  return counts;
}

/** Counts by state (each one a filter of the rail), one chip per remote host, the connection. */
export function TopStrip({ transportKind }: { transportKind: string }) {
  const counts = useCounts();
  const filter = useWindow((s) => s.filter);
  const hosts = useWindow((s) => s.hosts);
  const prompts = useWindow((s) => s.prompts);
  const decisions = useWindow((s) => s.decisions);
  const panel = useWindow((s) => s.layout.panel);
  const waiting = prompts.length + decisions.filter((d) => !d.state || d.state === 'open').length;
  const remote = hosts.filter((h) => h.state !== 'local');
  return (
    <header className="top-strip">
      <span className="brand">Rigdesk</span>
      <nav className="counts" aria-label="seats by state">
        {STATE_WORDS.map((w) => (
          <button
            key={w}
            type="button"
            className={`count s-${w}${counts[w] === 0 ? ' zero' : ''}`}
            data-count={w}
            aria-pressed={filter === w}
            title={filter === w ? 'Show every seat' : `Show only seats that are ${COUNT_LABEL[w]}`}
            onClick={() => useWindow.setState({ filter: filter === w ? undefined : w })}
          >
            <span className="dot" aria-hidden="true" />
            <span className="num">{counts[w]}</span> <span className="label">{COUNT_LABEL[w]}</span>
          </button>
        ))}
      </nav>
      {remote.length > 0 && (
        <ul className="hosts" aria-label="hosts">
          {remote.map((h) => (
            <li key={h.host} data-host={h.host} className={`host ${h.state}`} title={h.reason ?? ''}>
              <span className="dot" aria-hidden="true" />
              <span className="name">{h.host}</span>{' '}
              <span className="health" data-testid="host-health">
                {h.state === 'reachable' ? `reachable${h.rttMs !== undefined ? ` ${h.rttMs} ms` : ''}` : h.state}
              </span>
            </li>
          ))}
        </ul>
      )}
      <span className="spacer" />
      <button
        type="button"
        className={`decisions-toggle${waiting ? ' waiting' : ''}`}
        aria-pressed={panel === 'decisions'}
        onClick={() => showPanel('decisions')}
        title="Decisions (Ctrl+Shift+D)"
      >
        Decisions{' '}
        <span className="num" data-testid="decisions-count">
          {waiting}
        </span>
      </button>
      {/* The desktop app notifies natively (its shell): the bell is the browser window's. */}
      {transportKind === 'ws' && <Bell />}
      {transportKind === 'ws' && (
        <button
          type="button"
          className="devices-hint"
          onClick={() => useWindow.setState({ dialog: { kind: 'devices' } })}
        >
          Devices
        </button>
      )}
      <button type="button" className="palette-hint" onClick={() => useWindow.setState({ palette: true })}>
        <kbd>Ctrl K</kbd> <span className="label">Commands</span>
      </button>
      <button type="button" className="help-hint" aria-label="Keys" onClick={() => useWindow.setState({ help: true })}>
        ?
      </button>
      <Connection transportKind={transportKind} />
    </header>
  );
}

/** Under the strip while Rigdesk's tmux server is stuck: which process, and the next step, in full. */
export function StuckBar() {
  const stuck = useWindow((s) => s.stuck);
  if (!stuck) return null;
  const pid = stuck.pids.length > 0 ? `pid ${stuck.pids.join(', ')}` : 'no process found holding it';
  return (
    <div className="stuck-bar" role="alert" data-testid="tmux-stuck" data-stuck={stuck.pids.join(' ')}>
      <strong>TMUX_SERVER_STUCK</strong> the tmux server on <code>{stuck.socket}</code> ({pid}) {stuck.why}: every seat
      on it is out of reach. Run <code>rigdesk doctor --fix</code> to end exactly that server; its sessions are lost.
    </div>
  );
}

/**
 * The connection to the engine, and past it to Rigdesk's tmux server: a stuck server (ps names it)
 * turns the chip into what to do, since every seat is out of reach until that process ends.
 */
function Connection({ transportKind }: { transportKind: string }) {
  const status = useWindow((s) => s.status);
  const stuck = useWindow((s) => s.stuck);
  if (stuck) {
    const pid = stuck.pids.length === 1 ? `pid ${stuck.pids[0]}` : 'pid unknown';
    return (
      <span
        className="conn stuck"
        data-testid="connection"
        data-stuck={stuck.pids.join(' ')}
        role="status"
        title={`TMUX_SERVER_STUCK: the tmux server on ${stuck.socket} (${pid}) ${stuck.why}. ${stuck.hint}`}
      >
        <span className="dot" aria-hidden="true" />
        <span className="label">tmux stuck ({pid})</span>
      </span>
    );
  }
  return (
    <span className={`conn ${status}`} data-testid="connection" title={`${transportKind} ${status}`}>
      <span className="dot" aria-hidden="true" />
      <span className="label">
        {transportKind} {status}
      </span>
    </span>
  );
}
