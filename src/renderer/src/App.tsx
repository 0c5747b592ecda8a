import { useEffect, useMemo } from 'react';
import type { HostHealthRow, PromptItem, PsRow } from '../../shared/contract';
import { reload, routeFromHash, useApp } from './store';
import { FrameRouter } from './terminal/frames';
import type { Transport } from './transport';
import { DecisionsView } from './views/Decisions';
import { SeatPage } from './views/SeatPage';
import { TopologyView } from './views/Topology';

/** Events that change the shape of a rig or its decisions; the others only move badges. */
const RELOAD_ON = /^(rig\.|decision\.)/;

export function App({ transport }: { transport: Transport }) {
  const frames = useMemo(() => new FrameRouter(transport), [transport]);
  const { route, setRoute, status, decisions, prompts } = useApp();

  useEffect(() => {
    const offStatus = transport.onStatus((s) => useApp.setState({ status: s }));
    const offPush = transport.onPush((m) => {
      if (m.push === 'seats')
        useApp.setState({
          seats: Object.fromEntries((m.data.seats as unknown as PsRow[]).map((r) => [r.seat, r])),
          hosts: (m.data.hosts ?? []) as unknown as HostHealthRow[],
        });
      else if (m.push === 'prompts') useApp.setState({ prompts: m.data.prompts as unknown as PromptItem[] });
      else if (m.push === 'focus') useApp.getState().setRoute({ page: 'seat', seat: m.data.seat });
      else if (m.push === 'event' && RELOAD_ON.test(m.data.kind)) void reload(transport);
    });
    const onHash = () => useApp.setState({ route: routeFromHash(location.hash) });
    window.addEventListener('hashchange', onHash);
    void reload(transport);
    return () => {
      offStatus();
      offPush();
      window.removeEventListener('hashchange', onHash);
    };
  }, [transport]);

  const waiting =
    prompts.length + (decisions === 'unavailable' ? 0 : decisions.filter((d) => !d.state || d.state === 'open').length);
  return (
    <div className="app">
      <nav>
        <span className="brand">Rigdesk</span>
        <button aria-current={route.page === 'topology'} onClick={() => setRoute({ page: 'topology' })}>
          Topology
        </button>
        <button aria-current={route.page === 'decisions'} onClick={() => setRoute({ page: 'decisions' })}>
          Decisions{waiting ? ` (${waiting})` : ''}
        </button>
        <span className={`conn ${status}`} data-testid="connection">
          {transport.kind} {status}
        </span>
      </nav>
      <main>
        {route.page === 'topology' && <TopologyView transport={transport} />}
        {route.page === 'seat' && <SeatPage key={route.seat} seat={route.seat} transport={transport} frames={frames} />}
        {route.page === 'decisions' && <DecisionsView transport={transport} />}
      </main>
    </div>
  );
}
