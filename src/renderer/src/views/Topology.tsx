import '@xyflow/react/dist/style.css';
import {
  Background,
  Controls,
  getViewportForBounds,
  ReactFlow,
  type ReactFlowInstance,
  ReactFlowProvider,
  useReactFlow,
} from '@xyflow/react';
import { type RefObject, useCallback, useEffect, useMemo, useRef, useState } from 'react';
import type { HandoffItem, Topology } from '../../../shared/contract';
import { call } from '../state/actions';
import { useWindow } from '../state/store';
import { useEdgesWithOverlaps } from './changes/overlap-edges';
import { type TopologyCtx, TopologyContext } from './topology-context';
import { FarTags } from './topology-far';
import { useFarFlow, WiresNodeView } from './topology-wires';
import { layoutKey, layoutTopology, nextSeat, SEAT_H, SEAT_W, type TopologyLayout } from './topology-layout';
import { SeatMenu, ScreenPreview } from './TopologyOverlay';
import { FrameNodeView, RigEdgeView, SeatNodeView } from './TopologyParts';

const NODE_TYPES = { seat: SeatNodeView, frame: FrameNodeView, wires: WiresNodeView };
const EDGE_TYPES = { rig: RigEdgeView };
const FIT = { padding: 0.12, maxZoom: 1 };
const HOVER_MS = 300;
/** The lowest low enough that a 200-seat rig fits whole in a 1280x800 window's centre (0.15 cut it off). */
const ZOOMS = { minZoom: 0.08, maxZoom: 2 } as const;
/** The rig is looked at, not edited: nothing dragged, connected, selected or deleted; the keys are the window's. */
const FIXED = {
  nodesDraggable: false,
  nodesConnectable: false,
  nodesFocusable: false,
  edgesFocusable: false,
  elementsSelectable: false,
  disableKeyboardA11y: true,
  deleteKeyCode: null,
  selectionKeyCode: null,
  multiSelectionKeyCode: null,
  zoomOnDoubleClick: false,
} as const;

/** Layouts since the page loaded: the bench reads it (`data-layouts`) to prove a state change lays nothing out. */
let layouts = 0;
/** The last layout and its key: coming back to the view with the same shape draws it without dagre. */
let last: { key: string; layout: TopologyLayout & { count: number } } | undefined;

/** The rigs drawn: hosts and pods as frames, seats as nodes with their state, the edges by kind. */
export function TopologyView() {
  const loaded = useWindow((s) => s.loaded);
  const rigs = useWindow((s) => s.topology.rigs.length);
  if (loaded && rigs === 0)
    return (
      <section className="view-empty" aria-label="topology">
        <p>No rig yet: bring one up (Ctrl+K, “Bring up a rig”) and it is drawn here.</p>
      </section>
    );
  return (
    <ReactFlowProvider>
      <TopologyCanvas />
    </ReactFlowProvider>
  );
}

/**
 * Laid out again only when the rig's shape or a seat's host changes: the key is compared, not the
 * topology object (every reload brings a new one), and states are not in it at all.
 */
function useLayout(): TopologyLayout & { count: number } {
  const topology = useWindow((s) => s.topology);
  const hosts = useWindow((s) => JSON.stringify(hostMap(s.topology, s.seats)));
  return useMemo(() => layoutOf(topology, hosts), [topology, hosts]);
}

/** The layout of a topology with its hosts (a hostMap as JSON), kept while its key is the same. */
function layoutOf(topology: Topology, hosts: string): TopologyLayout & { count: number } {
  const map: Record<string, string> = JSON.parse(hosts);
  const key = layoutKey(topology, (seat) => map[seat] ?? 'local');
  if (last?.key === key) return last.layout;
  layouts++;
  last = { key, layout: { ...layoutTopology(topology, (seat) => map[seat] ?? 'local'), count: layouts } };
  return last.layout;
}

/** Lays out the rig the window holds now, before the view is opened (the centre calls it when idle). */
export function warmLayout(): void {
  const s = useWindow.getState();
  if (s.topology.rigs.length > 0) layoutOf(s.topology, JSON.stringify(hostMap(s.topology, s.seats)));
}

function hostMap(t: Topology, seats: Record<string, { host?: string } | undefined>): Record<string, string> {
  const out: Record<string, string> = {};
  for (const r of t.rigs) for (const p of r.pods) for (const s of p.seats) out[s.seat] = seats[s.seat]?.host ?? 'local';
  return out;
}

/** Open handoffs, read again whenever a queue event is pushed. */
function useHandoffs(): (a: string, b: string) => HandoffItem[] {
  const tick = useWindow((s) => s.events.filter((e) => e.kind.startsWith('queue.')).at(-1)?.seq ?? 0);
  const [items, setItems] = useState<HandoffItem[]>([]);
  // biome-ignore lint/correctness/useExhaustiveDependencies: read again on each queue event (tick)
  useEffect(() => {
    let live = true;
    void call('workspace.handoffs', {}, 'the open handoffs', { quiet: true }).then((r) => {
      if (live && r?.ok) setItems(r.handoffs);
    });
    return () => {
      live = false;
    };
  }, [tick]);
  return useMemo(() => {
    const by = new Map<string, HandoffItem[]>();
    for (const h of items) {
      const k = [h.from, h.to].sort().join('|');
      by.set(k, [...(by.get(k) ?? []), h]);
    }
    return (a: string, b: string) => by.get([a, b].sort().join('|')) ?? [];
  }, [items]);
}

type Spot = { seat: string; x: number; y: number };

/** Where an element is inside the canvas box, in the box's pixels (the overlay is placed there). */
function spotOf(box: RefObject<HTMLDivElement | null>, seat: string, el: HTMLElement): Spot {
  const b = box.current?.getBoundingClientRect();
  const r = el.getBoundingClientRect();
  return { seat, x: r.left - (b?.left ?? 0), y: r.bottom - (b?.top ?? 0) + 6 };
}

function TopologyCanvas() {
  const layout = useLayout();
  const handoffs = useHandoffs();
  const edges = useEdgesWithOverlaps(layout);
  const rf = useReactFlow();
  const box = useRef<HTMLDivElement>(null);
  const timer = useRef<ReturnType<typeof setTimeout>>(undefined);
  const [preview, setPreview] = useState<Spot>();
  const [menu, setMenu] = useState<Spot>();
  const [far, settled] = useFarBand(box, layout, rf.getZoom);
  const moving = useMoving(box, settled);
  const flow = useFarFlow(far, layout, edges);
  // A new shape is fitted to the view once it is drawn (the first one by `fitView` on mount).
  const first = useRef(true);
  // Whether the view still fits the whole rig to the box's size (until the person pans or zooms).
  const follow = useRef(true);
  // biome-ignore lint/correctness/useExhaustiveDependencies: fitted again when the layout changes
  useEffect(() => {
    if (first.current) {
      first.current = false;
      return;
    }
    follow.current = true; // a new shape is shown whole, and followed again
    const id = requestAnimationFrame(() => void rf.fitView(FIT));
    return () => cancelAnimationFrame(id);
  }, [layout]);
  useEffect(() => () => clearTimeout(timer.current), []);
  useFollowSize(box, rf, follow);

  const move = useCallback<TopologyCtx['move']>(
    (from, key) => {
      const to = nextSeat(layout.places, from, key);
      const el = to ? box.current?.querySelector<HTMLElement>(`[data-node="${CSS.escape(to)}"]`) : null;
      if (!to || !el) return;
      el.focus({ preventScroll: true });
      const b = box.current!.getBoundingClientRect();
      const r = el.getBoundingClientRect();
      const inside = r.left >= b.left && r.right <= b.right && r.top >= b.top && r.bottom <= b.bottom;
      const at = layout.places.get(to)!;
      if (inside) return;
      follow.current = false;
      void rf.setCenter(at.x + SEAT_W / 2, at.y + SEAT_H / 2, { zoom: rf.getZoom(), duration: 150 });
    },
    [layout, rf],
  );
  const ctx = useMemo<TopologyCtx>(
    () => ({
      hover: (seat, el) => {
        clearTimeout(timer.current);
        if (!seat || !el) return setPreview(undefined);
        timer.current = setTimeout(() => setPreview(spotOf(box, seat, el)), HOVER_MS);
      },
      menu: (seat, el) => {
        clearTimeout(timer.current);
        setPreview(undefined);
        setMenu(spotOf(box, seat, el));
      },
      move,
      handoffs,
      far,
    }),
    [move, handoffs, far],
  );
  const closeMenu = (refocus: boolean) => {
    const seat = menu?.seat;
    setMenu(undefined);
    if (refocus && seat) box.current?.querySelector<HTMLElement>(`[data-node="${CSS.escape(seat)}"]`)?.focus();
  };
  return (
    <TopologyContext.Provider value={ctx}>
      <section
        className="topology"
        aria-label="topology"
        ref={box}
        data-layouts={layout.count}
        data-zoom={far ? 'far' : 'near'}
      >
        <ReactFlow
          nodes={flow.nodes}
          edges={flow.edges}
          nodeTypes={NODE_TYPES}
          edgeTypes={EDGE_TYPES}
          colorMode="system"
          fitView
          fitViewOptions={FIT}
          {...ZOOMS}
          {...FIXED}
          onMoveStart={(e) => {
            // A gesture of the person's (a fit or a resize moves the view with no event).
            if (e) follow.current = false;
            setPreview(undefined);
            setMenu(undefined);
            moving.start();
          }}
          onMoveEnd={moving.end}
          // The window opens no outside link: the library's attribution link is left out (MIT).
          proOptions={{ hideAttribution: true }}
        >
          <Background gap={24} size={1} />
          <ViewControls follow={follow} />
          {far && <FarTags tags={layout.tags} />}
        </ReactFlow>
        <Legend />
        {preview && !menu && <ScreenPreview spot={preview} />}
        {menu && <SeatMenu spot={menu} onClose={closeMenu} />}
      </section>
    </TopologyContext.Provider>
  );
}

/** How long after a pan or zoom step the view stays on its own layer (wheel steps come apart by less). */
const SETTLE_MS = 250;

/**
 * While the view moves, the canvas is one composited layer (`.moving`: will-change) so a pan or
 * zoom step moves pixels instead of painting 200 seats and their edges again; once it settles the
 * layer goes and the text is drawn sharp at the new zoom.
 */
function useMoving(box: RefObject<HTMLDivElement | null>, settled: () => void): { start: () => void; end: () => void } {
  const timer = useRef<ReturnType<typeof setTimeout>>(undefined);
  const then = useRef(settled);
  then.current = settled;
  useEffect(() => () => clearTimeout(timer.current), []);
  return useMemo(
    () => ({
      start: () => {
        clearTimeout(timer.current);
        box.current?.classList.add('moving');
      },
      end: () => {
        clearTimeout(timer.current);
        timer.current = setTimeout(() => {
          box.current?.classList.remove('moving');
          then.current();
        }, SETTLE_MS);
      },
    }),
    [box],
  );
}

/** Below this zoom a seat's words are a few pixels high (a 200-seat rig fits whole at about 0.1). */
const FAR_ZOOM = 0.35;

/**
 * Whether the view is zoomed below FAR_ZOOM, read when it settles (a change draws every seat
 * again: one long task, never inside a gesture), with the scale the far labels take (topology-far.css).
 */
function useFarBand(
  box: RefObject<HTMLDivElement | null>,
  layout: TopologyLayout,
  zoomOf: () => number,
): [boolean, () => void] {
  const [far, setFar] = useState(() => fitsFar(layout));
  const settled = useCallback(() => {
    const zoom = zoomOf();
    box.current?.style.setProperty('--far-scale', (1 / zoom).toFixed(3));
    setFar(zoom < FAR_ZOOM);
  }, [box, zoomOf]);
  return [far, settled];
}

/**
 * Whether the layout, fitted to the window, opens below FAR_ZOOM: guessed from the window's size
 * before the canvas is measured, so a big rig's first drawing is already its tiles (the settled
 * view corrects a wrong guess).
 */
function fitsFar(layout: TopologyLayout): boolean {
  let width = 0;
  let height = 0;
  for (const n of layout.nodes) {
    if (n.parentId) continue;
    width = Math.max(width, n.position.x + Number(n.style?.width ?? 0));
    height = Math.max(height, n.position.y + Number(n.style?.height ?? 0));
  }
  const scale = 1 + 2 * FIT.padding;
  return Math.min(window.innerWidth / (width * scale), window.innerHeight / (height * scale)) < FAR_ZOOM;
}

/** Zoom and fit: a zoom of the person's stops the view following the box's size, a fit resumes it. */
function ViewControls({ follow }: { follow: RefObject<boolean> }) {
  return (
    <Controls
      showInteractive={false}
      position="bottom-right"
      fitViewOptions={FIT}
      onFitView={() => void (follow.current = true)}
      onZoomIn={() => void (follow.current = false)}
      onZoomOut={() => void (follow.current = false)}
    />
  );
}

/**
 * Keeps the whole rig in view while the box changes size (the window resized, a panel opened or
 * closed), as long as `follow` says the person has not moved the view themselves. The fit is set
 * in the frame itself, not queued as React Flow's fitView is (until its nodes next update): a queued
 * fit could land after the person had begun to drag, and take their view away.
 */
function useFollowSize(box: RefObject<HTMLDivElement | null>, rf: ReactFlowInstance, follow: RefObject<boolean>): void {
  useEffect(() => {
    const el = box.current;
    if (!el) return;
    let frame = 0;
    const fit = () => {
      const pane = el.querySelector<HTMLElement>('.react-flow');
      const nodes = rf.getNodes().filter((n) => !n.hidden);
      if (!follow.current || !pane || nodes.length === 0) return;
      const { padding, maxZoom } = FIT;
      const bounds = rf.getNodesBounds(nodes);
      void rf.setViewport(
        getViewportForBounds(bounds, pane.clientWidth, pane.clientHeight, ZOOMS.minZoom, maxZoom, padding),
      );
    };
    const ro = new ResizeObserver(() => {
      cancelAnimationFrame(frame);
      if (follow.current) frame = requestAnimationFrame(fit);
    });
    ro.observe(el);
    return () => {
      ro.disconnect();
      cancelAnimationFrame(frame);
    };
  }, [box, rf, follow]);
}

/** How edges and states are drawn, in words. */
function Legend() {
  return (
    <aside className="topology-legend" aria-label="legend">
      <span className="lg k-delegates_to">
        <svg width="34" height="10" aria-hidden="true">
          <line x1="1" y1="5" x2="26" y2="5" />
          <path d="M26 1 L33 5 L26 9 z" />
        </svg>
        delegates to
      </span>
      <span className="lg k-escalates_to">
        <svg width="34" height="10" aria-hidden="true">
          <line x1="1" y1="5" x2="26" y2="5" strokeDasharray="5 3" />
          <path d="M26 1 L33 5 L26 9 z" />
        </svg>
        escalates to
      </span>
      <span className="lg k-collaborates_with">
        <svg width="34" height="10" aria-hidden="true">
          <line x1="8" y1="5" x2="26" y2="5" />
          <path d="M26 1 L33 5 L26 9 z" />
          <path d="M8 1 L1 5 L8 9 z" />
        </svg>
        collaborates with
      </span>
      <span className="lg k-overlaps">
        <svg width="34" height="10" aria-hidden="true">
          <line x1="1" y1="5" x2="33" y2="5" strokeDasharray="2 4" />
        </svg>
        changed the same files
      </span>
    </aside>
  );
}
