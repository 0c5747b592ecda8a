import { lazy, Suspense, useEffect, useState } from 'react';
import type { CentreView } from '../../../shared/contract';
import { showView } from '../state/actions';
import { openDecisionFor, useWindow } from '../state/store';
import type { FrameRouter } from '../terminal/frames';
import type { Transport } from '../transport';
import { Grid } from './Grid';
import { RestoreReview } from './RestoreReview';
import { TimelineView } from './Timeline';
import { UsageView } from './usage/UsageView';

// The topology (React Flow, dagre) is not part of the window's first paint: it is fetched once the
// first screen is drawn and the page is idle, so the tab opens without waiting for its code.
// Its layout is made then too (it is kept while the rig's shape is the same).
const loadTopology = () => import('./Topology');
const warmTopology = () => loadTopology().then((m) => m.warmLayout());
const TopologyView = lazy(() => loadTopology().then((m) => ({ default: m.TopologyView })));

function usePrefetch(load: () => Promise<unknown>): void {
  useEffect(() => {
    const go = () => void load().catch(() => undefined); // a failed fetch is tried again by the tab
    if (typeof requestIdleCallback !== 'function') {
      const t = setTimeout(go, 1000);
      return () => clearTimeout(t);
    }
    const id = requestIdleCallback(go, { timeout: 3000 });
    return () => cancelIdleCallback(id);
  }, [load]);
}

const TABS: { view: CentreView; label: string }[] = [
  { view: 'grid', label: 'Grid' },
  { view: 'topology', label: 'Topology' },
  { view: 'timeline', label: 'Timeline' },
  { view: 'restore', label: 'Restore' },
  { view: 'usage', label: 'Usage' },
];

/**
 * The centre of the workspace: the grid of terminals, or the rig drawn, its timeline, the
 * restore review, or its usage; one switch (a tab, the palette, Ctrl+Shift+G), kept in the layout. A view that
 * is not shown is not mounted: the grid's panes park as they do when they leave the screen.
 */
export function Centre({ transport, frames }: { transport: Transport; frames: FrameRouter }) {
  const view = useWindow((s) => s.layout.view ?? 'grid');
  usePrefetch(warmTopology);
  return (
    <div className="centre" data-view={view}>
      <div className="view-bar">
        <div className="view-tabs" role="tablist" aria-label="centre view">
          {TABS.map((t) => (
            <button
              key={t.view}
              type="button"
              role="tab"
              data-view-tab={t.view}
              aria-selected={view === t.view}
              title={`${t.label} (Ctrl+Shift+G: next view)`}
              onClick={() => showView(t.view)}
            >
              {t.label}
            </button>
          ))}
        </div>
        <RestoreOffer view={view} />
      </div>
      <div className="centre-body">
        {view === 'grid' ? (
          <Grid transport={transport} frames={frames} />
        ) : view === 'topology' ? (
          <Suspense fallback={null}>
            <TopologyView />
          </Suspense>
        ) : view === 'timeline' ? (
          <TimelineView />
        ) : view === 'usage' ? (
          <UsageView />
        ) : (
          <RestoreReview />
        )}
      </div>
    </div>
  );
}

/**
 * After a reboot (or any loss of sessions) the restore review is offered where the person looks:
 * seats with an open restore decision, and seats that are down though nobody stopped them.
 */
function RestoreOffer({ view }: { view: CentreView }) {
  const waiting = useWindow((s) => s.decisions.filter((d) => !d.state || d.state === 'open').length);
  // A seat with an open decision is counted there, not again as down.
  const down = useWindow(
    (s) =>
      Object.values(s.seats).filter(
        (r) =>
          (r.state === 'gone' || (r.state === 'stopped' && !r.stoppedOnPurpose)) &&
          !openDecisionFor(s.decisions, r.seat),
      ).length,
  );
  const [hidden, setHidden] = useState('');
  const key = `${waiting}|${down}`;
  if (view === 'restore' || (waiting === 0 && down === 0) || hidden === key) return null;
  const parts = [
    waiting ? `${waiting} decision${waiting === 1 ? '' : 's'} open` : '',
    down ? `${down} seat${down === 1 ? '' : 's'} down` : '',
  ].filter(Boolean);
  return (
    <div
      className="restore-offer"
      role="status"
      data-testid="restore-offer"
      title="Restore decisions wait for you, or seats are down that nobody stopped on purpose (after a reboot, say)"
    >
      <span>Restore: {parts.join(', ')}</span>
      <button type="button" className="primary" onClick={() => showView('restore')}>
        Review the restore
      </button>
      <button type="button" className="icon" aria-label="Hide this offer" onClick={() => setHidden(key)}>
        ✕
      </button>
    </div>
  );
}
