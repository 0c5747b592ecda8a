import type { ClientMethod, ClientParams } from '../../../shared/contract';
import { useRef, useState, type KeyboardEvent } from 'react';
import { badgeOf, reload, useApp } from '../store';
import type { Transport } from '../transport';

/** Rigs → pods → seats, each with its badge, and the rig's edges. Arrow keys move between seats. */
export function TopologyView({ transport }: { transport: Transport }) {
  const { topology, seats, hosts, setRoute } = useApp();
  const root = useRef<HTMLDivElement>(null);
  const [spec, setSpec] = useState('');
  const [note, setNote] = useState('');

  const onKey = (e: KeyboardEvent) => {
    if (!['ArrowDown', 'ArrowUp', 'ArrowRight', 'ArrowLeft'].includes(e.key)) return;
    const all = [...(root.current?.querySelectorAll<HTMLButtonElement>('button.seat') ?? [])];
    const i = all.indexOf(document.activeElement as HTMLButtonElement);
    const next = all[(i + (e.key === 'ArrowDown' || e.key === 'ArrowRight' ? 1 : all.length - 1)) % all.length];
    next?.focus();
    e.preventDefault();
  };
  const act = async <M extends ClientMethod>(method: M, params: ClientParams<M>) => {
    setNote(`${method}…`);
    const r = await transport.request(method, params);
    setNote(r.ok ? `${method}: done` : `${method}: ${r.code}: ${r.message}`);
    await reload(transport);
  };

  return (
    <div className="topology" ref={root} onKeyDown={onKey}>
      <form className="bar" onSubmit={(e) => (e.preventDefault(), void act('up', { spec }))}>
        <input
          aria-label="rig spec path"
          placeholder="/path/to/rig.yaml"
          value={spec}
          onChange={(e) => setSpec(e.target.value)}
        />
        <button type="submit" disabled={!spec}>
          Bring up
        </button>
        <span className="note" role="status">
          {note}
        </span>
      </form>
      {hosts.length > 0 && (
        <ul className="hosts" aria-label="hosts">
          {hosts.map((h) => (
            <li key={h.host} data-host={h.host} className={`host ${h.state}`} title={h.reason ?? ''}>
              <span className="name">{h.host}</span>{' '}
              <span className="health" data-testid="host-health">
                {h.state === 'reachable'
                  ? `reachable${h.rttMs !== undefined ? ` (${h.rttMs} ms)` : ''}`
                  : h.state === 'unreachable'
                    ? 'unreachable'
                    : h.state}
              </span>
            </li>
          ))}
        </ul>
      )}
      {topology.rigs.length === 0 && <p className="empty">No rigs yet. Bring one up from a spec file.</p>}
      {topology.rigs.map((rig) => (
        <section key={rig.name} className="rig" aria-label={`rig ${rig.name}`} data-rig={rig.name}>
          <header>
            <h2>{rig.name}</h2>
            <button className="danger" onClick={() => void act('down', { rig: rig.name })}>
              Take down
            </button>
          </header>
          {rig.pods.map((pod) => (
            <div key={pod.id} className="pod" data-pod={pod.id}>
              <h3>{pod.id}</h3>
              <div className="seats">
                {pod.seats.map((s) => {
                  const b = badgeOf(seats[s.seat]);
                  return (
                    <button
                      key={s.seat}
                      className="seat"
                      data-seat={s.seat}
                      aria-label={`seat ${s.seat}, ${b.label}`}
                      onClick={() => setRoute({ page: 'seat', seat: s.seat })}
                    >
                      <span className="member">{s.member}</span>
                      <span className="runtime">{s.runtime}</span>
                      {seats[s.seat]?.host && seats[s.seat]!.host !== 'local' && (
                        <span className="host" data-testid="seat-host">
                          @{seats[s.seat]!.host}
                        </span>
                      )}
                      <span className={`badge ${b.tone}`} data-testid="badge">
                        {b.label}
                      </span>
                    </button>
                  );
                })}
              </div>
            </div>
          ))}
          {rig.edges.length > 0 && (
            <ul className="edges" aria-label="edges">
              {rig.edges.map((e) => (
                <li key={`${e.from}-${e.to}-${e.kind}`} data-edge={`${e.from}>${e.to}`}>
                  {e.from} <span className="kind">{e.kind.replace(/_/g, ' ')}</span> {e.to}
                </li>
              ))}
            </ul>
          )}
        </section>
      ))}
    </div>
  );
}
