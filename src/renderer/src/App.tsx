import { useEffect, useMemo, useState } from 'react';
import { Group, Panel, Separator } from 'react-resizable-panels';
import { useWindow } from './state/store';
import { connect } from './state/sync';
import { useKeys } from './state/use-keys';
import { FrameRouter } from './terminal/frames';
import type { Transport } from './transport';
import { Centre } from './views/Centre';
import { ChangesFeed } from './views/changes/ChangesFeed';
import { DecisionsPanel } from './views/Decisions';
import { DetailsPanel } from './views/Details';
import { DialogHost } from './views/Dialogs';
import { Help } from './views/Help';
import { Notes } from './views/Notes';
import { Palette } from './views/Palette';
import { PhoneApp } from './views/Phone';
import { Rail } from './views/Rail';
import { StuckBar, TopStrip } from './views/TopStrip';

/**
 * The supervisor's workspace, one window with no page swaps: counts and hosts on top, the seat
 * rail on the left, the grid of live terminals in the middle (or the rig drawn, its timeline, the
 * restore review), Decisions or the focused seat's
 * details on the right; the palette, the keys and the dialogs over it. On a narrow screen (a phone
 * through `rigdesk serve --listen`) the one-column phone layout instead.
 */
export function App({ transport }: { transport: Transport }) {
  return useNarrow() ? <PhoneApp transport={transport} /> : <Workspace transport={transport} />;
}

/** Phones and narrow windows: below this width the workspace's columns do not fit. */
const NARROW = '(max-width: 700px)';

function useNarrow(): boolean {
  const [narrow, setNarrow] = useState(() => window.matchMedia(NARROW).matches);
  useEffect(() => {
    const m = window.matchMedia(NARROW);
    const on = () => setNarrow(m.matches);
    m.addEventListener('change', on);
    return () => m.removeEventListener('change', on);
  }, []);
  return narrow;
}

function Workspace({ transport }: { transport: Transport }) {
  const frames = useMemo(() => new FrameRouter(transport), [transport]);
  useEffect(() => connect(transport), [transport]);
  useKeys();
  const rail = useWindow((s) => s.layout.rail);
  const panel = useWindow((s) => s.layout.panel);
  const edges = useMemo(() => edgePanels(window.innerWidth), []);
  return (
    <div className="app">
      <TopStrip transportKind={transport.kind} />
      <StuckBar />
      <Group orientation="horizontal" className="body" id="workspace">
        {rail && (
          <>
            <Panel {...edges.rail}>
              <Rail />
            </Panel>
            <Separator className="sep" />
          </>
        )}
        <Panel id="grid" minSize={320}>
          <Centre transport={transport} frames={frames} />
        </Panel>
        {panel !== 'none' && (
          <>
            <Separator className="sep" />
            <Panel {...edges.side}>
              <SidePanel panel={panel} />
            </Panel>
          </>
        )}
      </Group>
      <Notes />
      <Palette />
      <Help />
      <DialogHost />
      <ChangesFeed />
    </div>
  );
}

/**
 * The rail's and the side panel's sizes. They open at full width from 1280 px up and narrower
 * below, so that a small window still leaves the terminals half of it; a window resize keeps
 * their pixels and gives the change to the grid.
 */
function edgePanels(windowWidth: number) {
  const edge = (id: string, share: number, first: [number, number], minSize: number, maxSize: number) => ({
    id,
    defaultSize: Math.round(Math.min(first[1], Math.max(first[0], windowWidth * share))),
    minSize,
    maxSize,
    groupResizeBehavior: 'preserve-pixel-size' as const,
  });
  return { rail: edge('rail', 0.21, [190, 270], 180, 460), side: edge('side', 0.26, [250, 330], 240, 640) };
}

function SidePanel({ panel }: { panel: 'decisions' | 'details' }) {
  const count = useWindow((s) => s.prompts.length + s.decisions.filter((d) => !d.state || d.state === 'open').length);
  const tab = (p: 'decisions' | 'details', label: string) => (
    <button
      type="button"
      role="tab"
      aria-selected={panel === p}
      onClick={() => useWindow.setState((s) => ({ layout: { ...s.layout, panel: p } }))}
    >
      {label}
    </button>
  );
  return (
    <div className="side">
      <div className="tabs" role="tablist">
        {tab('decisions', `Decisions${count ? ` (${count})` : ''}`)}
        {tab('details', 'Seat details')}
        <span className="spacer" />
        <button
          type="button"
          className="icon"
          aria-label="Hide the panel"
          onClick={() => useWindow.setState((s) => ({ layout: { ...s.layout, panel: 'none' } }))}
        >
          ✕
        </button>
      </div>
      <div className="side-body">{panel === 'decisions' ? <DecisionsPanel /> : <DetailsPanel />}</div>
    </div>
  );
}
