import dagre from '@dagrejs/dagre';
import { type Edge, type EdgeMarker, MarkerType, type Node, type NodeHandle, Position } from '@xyflow/react';
import type { Topology } from '../../../shared/contract';
import { placeRigPacked, PACK_OVER } from './topology-pack';
import {
  addRigEdge,
  type Box,
  type DagreEdge,
  type DagreNode,
  type FrameData,
  hostFrame,
  type Point,
  type RigPlaced,
  SEAT_H,
  SEAT_W,
  type SeatData,
} from './topology-shape';

export type { FrameData, FrameKind, Point, SeatData } from './topology-shape';
export { SEAT_H, SEAT_W };

/**
 * The topology's layout, pure: each rig a frame, its hosts and pods nested frames, its seats nodes,
 * placed by dagre (a compound graph, so a pod's seats stay together and pods do not overlap). It
 * depends on the rig's shape only (seats, pods, hosts, edges), never on a seat's state: a state
 * change redraws a node and never lays the graph out again.
 */

const RIG_GAP = 56;
const RIG_PAD = 20;
const RIG_HEAD = 30;
/** How far apart two edges between the same seats run. */
const LANE_GAP = 9;

/** `route`: dagre's path between the two seats (around the others), absolute; the edge draws through it. */
export type EdgeData = {
  kind: string;
  from: string;
  to: string;
  rig: string;
  route?: Point[];
  /** Said after the edge's words (an overlap's paths). */
  note?: string;
};
export type FrameNode = Node<FrameData, 'frame'>;
export type SeatFlowNode = Node<SeatData, 'seat'>;
export type FlowNode = FrameNode | SeatFlowNode;
export type FlowEdge = Edge<EdgeData, 'rig'>;

export interface TopologyLayout {
  nodes: FlowNode[];
  edges: FlowEdge[];
  /** Each seat's place (top-left, absolute), for the arrow keys. */
  places: Map<string, Point>;
  /** Each rig's and pod's frame (top-left, absolute) and its seats: the far view's labels (topology-far.tsx). */
  tags: FarTag[];
}

export type FarTag = { id: string; kind: 'rig' | 'pod'; label: string; at: Point; seats: string[] };

/** What the layout depends on: the shape and where each seat runs, as one string (equal strings, same layout). */
export function layoutKey(t: Topology, hostOf: (seat: string) => string): string {
  return JSON.stringify(
    t.rigs.map((r) => [
      r.name,
      r.pods.map((p) => [p.id, p.seats.map((s) => [s.seat, s.runtime, hostOf(s.seat)])]),
      r.edges.map((e) => [e.from, e.to, e.kind]),
    ]),
  );
}

/** Which side of each seat an edge leaves and enters by: the one facing the other seat. */
export function sides(a: { x: number; y: number }, b: { x: number; y: number }): { source: string; target: string } {
  const dx = b.x - a.x;
  const dy = b.y - a.y;
  if (Math.abs(dy) >= SEAT_H) return dy > 0 ? { source: 'b', target: 't' } : { source: 't', target: 'b' };
  return dx >= 0 ? { source: 'r', target: 'l' } : { source: 'l', target: 'r' };
}

/** One rig as a dagre compound graph: host → pod → seat clusters, the rig's edges between its seats. */
function rigGraph(rig: Topology['rigs'][number], hostOf: (seat: string) => string) {
  const g = new dagre.graphlib.Graph<object, DagreNode, DagreEdge>({ compound: true, multigraph: true });
  g.setGraph({ rankdir: 'TB', nodesep: 24, ranksep: 50, marginx: 0, marginy: 0 });
  const frames: RigPlaced['frames'] = [];
  const podSeats = new Map<string, string[]>();
  const memberSeat = new Map<string, string>();
  for (const pod of rig.pods)
    for (const s of pod.seats) {
      memberSeat.set(s.member, s.seat);
      const host = hostOf(s.seat);
      const hostId = `host:${rig.name}:${host}`;
      const podId = `pod:${rig.name}:${host}:${pod.id}`;
      if (!g.hasNode(hostId)) {
        g.setNode(hostId, {});
        frames.push({ id: hostId, parent: undefined, box: zero(), data: hostFrame(rig.name, host) });
      }
      if (!g.hasNode(podId)) {
        g.setNode(podId, {});
        g.setParent(podId, hostId);
        podSeats.set(podId, []);
        frames.push({
          id: podId,
          parent: hostId,
          box: zero(),
          data: { kind: 'pod', label: pod.id, rig: rig.name, seats: podSeats.get(podId) },
        });
      }
      podSeats.get(podId)!.push(s.seat);
      g.setNode(s.seat, { width: SEAT_W, height: SEAT_H, pod: podId, data: { ...s, rig: rig.name } });
      g.setParent(s.seat, podId);
    }
  for (const e of rig.edges) {
    const from = memberSeat.get(e.from);
    const to = memberSeat.get(e.to);
    if (from && to && from !== to) addRigEdge(g, from, to, e.kind);
  }
  return { g, frames };
}

/** One rig through dagre; every box and route moved so the rig's top-left is 0,0. */
function placeRig(rig: Topology['rigs'][number], hostOf: (seat: string) => string): RigPlaced {
  if (rig.pods.reduce((n, p) => n + p.seats.length, 0) > PACK_OVER) return placeRigPacked(rig, hostOf);
  const { g, frames } = rigGraph(rig, hostOf);
  dagre.layout(g);
  const at = (id: string): Box => {
    const n = g.node(id);
    const [w, h] = [n.width ?? 0, n.height ?? 0];
    return { x: (n.x ?? 0) - w / 2, y: (n.y ?? 0) - h / 2, width: w, height: h };
  };
  for (const f of frames) f.box = at(f.id);
  const seats: RigPlaced['seats'] = [];
  for (const id of g.nodes()) {
    const n = g.node(id);
    if (n.pod && n.data) seats.push({ id, parent: n.pod, box: at(id), data: n.data });
  }
  const all = [...frames.map((f) => f.box), ...seats.map((s) => s.box)];
  const minX = Math.min(...all.map((b) => b.x));
  const minY = Math.min(...all.map((b) => b.y));
  for (const b of all) {
    b.x -= minX;
    b.y -= minY;
  }
  const routes = new Map<string, Point[]>();
  for (const e of g.edges()) {
    const label = g.edge(e);
    const pts = (label.points ?? []).map((p) => ({ x: p.x - minX, y: p.y - minY }));
    routes.set(label.key, label.reversed ? pts.reverse() : pts);
  }
  return {
    width: Math.max(...all.map((b) => b.x + b.width), 0),
    height: Math.max(...all.map((b) => b.y + b.height), 0),
    frames,
    seats,
    routes,
  };
}

const zero = (): Box => ({ x: 0, y: 0, width: 0, height: 0 });

/** Every rig laid out and stacked top to bottom; children placed relative to their frame, as React Flow wants. */
export function layoutTopology(t: Topology, hostOf: (seat: string) => string): TopologyLayout {
  const nodes: FlowNode[] = [];
  const edges: FlowEdge[] = [];
  const places = new Map<string, { x: number; y: number }>();
  const tags: FarTag[] = [];
  let top = 0;
  for (const rig of t.rigs) {
    const placed = placeRig(rig, hostOf);
    const rigId = `rig:${rig.name}`;
    const origin = { x: RIG_PAD, y: top + RIG_HEAD };
    nodes.push({
      id: rigId,
      type: 'frame',
      position: { x: 0, y: top },
      data: { kind: 'rig', label: rig.name, rig: rig.name },
      ...sized(placed.width + 2 * RIG_PAD, placed.height + RIG_HEAD + RIG_PAD),
      selectable: false,
      focusable: false,
    });
    const abs = new Map<string, { x: number; y: number }>([[rigId, { x: 0, y: top }]]);
    const place = (id: string, parent: string, b: Box): { x: number; y: number } => {
      const p = abs.get(parent)!;
      const a = { x: origin.x + b.x, y: origin.y + b.y };
      abs.set(id, a);
      return { x: a.x - p.x, y: a.y - p.y };
    };
    tags.push({ id: rigId, kind: 'rig', label: rig.name, at: { x: 0, y: top }, seats: [] });
    for (const f of placed.frames)
      nodes.push({
        id: f.id,
        type: 'frame',
        parentId: f.parent ?? rigId,
        position: place(f.id, f.parent ?? rigId, f.box),
        data: f.data,
        ...sized(f.box.width, f.box.height),
        selectable: false,
        focusable: false,
      });
    for (const f of placed.frames)
      if (f.data.kind === 'pod')
        tags.push({ id: f.id, kind: 'pod', label: f.data.label, at: abs.get(f.id)!, seats: f.data.seats ?? [] });
    for (const s of placed.seats) {
      nodes.push({
        id: s.id,
        type: 'seat',
        parentId: s.parent,
        position: place(s.id, s.parent, s.box),
        data: s.data,
        // React Flow leaves a node it cannot select or drag deaf to the pointer; a seat listens (hover, click, menu).
        style: { width: SEAT_W, height: SEAT_H, pointerEvents: 'all' },
        selectable: false,
        focusable: false,
      });
      places.set(s.id, abs.get(s.id)!);
    }
    edges.push(...rigEdges(rig, places, placed.routes, origin));
    attachHandles(nodes, edges);
    top += placed.height + RIG_HEAD + RIG_PAD + RIG_GAP;
  }
  return { nodes, edges, places, tags };
}

/**
 * Each seat told which of its handles its edges use (a handle is a React Flow subscriber: 200 seats
 * drew 1 600), and given its size and those handles' places: React Flow then draws the seats and
 * their edges in its first pass, instead of hiding them until it has measured every node and handle.
 */
function attachHandles(nodes: FlowNode[], edges: FlowEdge[]): void {
  const used = new Map<string, Set<string>>();
  const add = (seat: string, id: string | null | undefined) => {
    if (id) used.set(seat, (used.get(seat) ?? new Set()).add(id));
  };
  for (const e of edges) {
    add(e.source, e.sourceHandle);
    add(e.target, e.targetHandle);
  }
  for (const n of nodes) {
    if (n.type !== 'seat' || n.data.handles) continue;
    const handles = [...(used.get(n.id) ?? [])].sort();
    n.data = { ...n.data, handles };
    Object.assign(n, { width: SEAT_W, height: SEAT_H, handles: handles.map(handleAt) });
  }
}

const SIDE_AT: Record<string, [Position, number, number]> = {
  t: [Position.Top, SEAT_W / 2, 0],
  b: [Position.Bottom, SEAT_W / 2, SEAT_H],
  l: [Position.Left, 0, SEAT_H / 2],
  r: [Position.Right, SEAT_W, SEAT_H / 2],
};

/** A handle id (`s-t`: the source on the top side) as React Flow's handle: a 1 px point mid-side (topology.css). */
export function handleAt(id: string): NodeHandle {
  const [io, side] = id.split('-');
  const [position, x, y] = SIDE_AT[side ?? 't'] ?? SIDE_AT.t!;
  return { id, type: io === 's' ? 'source' : 'target', position, x, y, width: 1, height: 1 };
}

/** A frame's size, known to React Flow up front (drawn at once, not hidden until measured). */
const sized = (width: number, height: number) => ({ width, height, style: { width, height } });

/**
 * Each kind's arrow, near and far out (topology-wires.tsx): delegation one arrow, escalation one
 * (dashed by its class), collaboration two-headed; any other kind a muted arrow.
 */
const ARROWS: Readonly<Record<string, { tone: string; both?: true }>> = {
  delegates_to: { tone: 'delegates' },
  escalates_to: { tone: 'escalates' },
  collaborates_with: { tone: 'collaborates', both: true },
};
export const ARROW_TONES = ['delegates', 'escalates', 'collaborates', 'muted'] as const;
export const arrowOf = (kind: string): { tone: string; both?: true } => ARROWS[kind] ?? { tone: 'muted' };

function markers(kind: string): { markerEnd?: EdgeMarker; markerStart?: EdgeMarker } {
  const a = arrowOf(kind);
  const color = a.tone === 'muted' ? 'var(--muted)' : `var(--edge-${a.tone})`;
  const m: EdgeMarker = { type: MarkerType.ArrowClosed, color, width: 16, height: 16 };
  return a.both ? { markerEnd: m, markerStart: m } : { markerEnd: m };
}

const near = (a: number, b: number) => Math.abs(a - b) < 1;

/**
 * Two edges between the same seats on one route (a delegation and its escalation) drawn a few
 * pixels apart: each end slides along the side of the seat it touches, the middle sideways.
 */
function apart(route: Point[], lane: number, ends: [Point, Point]): Point[] {
  if (lane === 0 || route.length < 2) return route;
  const shift = lane === 1 ? -LANE_GAP : LANE_GAP;
  const last = route.length - 1;
  return route.map((p, i) => {
    const box = i === 0 ? ends[0] : i === last ? ends[1] : undefined;
    const onSide = box && !near(p.y, box.y) && !near(p.y, box.y + SEAT_H);
    return onSide ? { x: p.x, y: p.y + shift } : { x: p.x + shift, y: p.y };
  });
}

/** The same line between the same two seats, whichever way each edge runs. */
function sameRoute(a: Point[] | undefined, b: Point[] | undefined): boolean {
  if (!a || !b || a.length !== b.length) return false;
  const eq = (x: Point[]) => x.every((p, i) => near(p.x, b[i]!.x) && near(p.y, b[i]!.y));
  return eq(a) || eq([...a].reverse());
}

function rigEdges(
  rig: Topology['rigs'][number],
  places: Map<string, Point>,
  routes: Map<string, Point[]>,
  origin: Point,
): FlowEdge[] {
  const seatOf = (m: string) => `${m}@${rig.name}`;
  const abs = rig.edges.map((e) =>
    routes.get(`${seatOf(e.from)}|${seatOf(e.to)}|${e.kind}`)?.map((p) => ({ x: origin.x + p.x, y: origin.y + p.y })),
  );
  // The edges between each pair of seats, whichever way they run: a twin is looked for among these
  // only (a search of every edge for each edge took a 200-seat rig's layout 150 ms).
  const pair = (e: { from: string; to: string }) => [e.from, e.to].sort().join('|');
  const byPair = new Map<string, number[]>();
  for (const [i, e] of rig.edges.entries()) byPair.set(pair(e), [...(byPair.get(pair(e)) ?? []), i]);
  return rig.edges.flatMap((e, i): FlowEdge[] => {
    const from = seatOf(e.from);
    const to = seatOf(e.to);
    const a = places.get(from);
    const b = places.get(to);
    if (!a || !b) return [];
    const side = sides(a, b);
    // An edge whose route another edge of the same two seats shares takes a lane beside it.
    const mine = abs[i];
    const twin = byPair.get(pair(e))!.find((j) => j !== i && sameRoute(abs[j], mine)) ?? -1;
    const route = apart(mine ?? [], twin < 0 ? 0 : i < twin ? 1 : 2, [a, b]);
    return [
      {
        id: `${from}->${to}:${e.kind}`,
        type: 'rig',
        source: from,
        target: to,
        sourceHandle: `s-${side.source}`,
        targetHandle: `t-${side.target}`,
        data: { kind: e.kind, from, to, rig: rig.name, ...(route.length >= 2 ? { route } : {}) },
        ...markers(e.kind),
        focusable: false,
        selectable: false,
      },
    ];
  });
}

/** A smooth path through a route: straight from its first point, curving through each middle one. */
export function routePath(route: readonly Point[]): { path: string; label: Point } {
  const f = (p: Point) => `${Math.round(p.x * 10) / 10},${Math.round(p.y * 10) / 10}`;
  const label = route[Math.floor(route.length / 2)]!;
  if (route.length < 3) return { path: `M${f(route[0]!)} L${f(route.at(-1)!)}`, label };
  let path = `M${f(route[0]!)}`;
  for (let i = 1; i < route.length - 1; i++) {
    const p = route[i]!;
    const q = route[i + 1]!;
    const end = i === route.length - 2 ? q : { x: (p.x + q.x) / 2, y: (p.y + q.y) / 2 };
    path += ` Q${f(p)} ${f(end)}`;
  }
  return { path, label };
}

/** The seat the arrow keys move to from `from`: the nearest one that way, a little off the line costing more. */
export function nextSeat(
  places: Map<string, { x: number; y: number }>,
  from: string,
  dir: 'ArrowUp' | 'ArrowDown' | 'ArrowLeft' | 'ArrowRight',
): string | undefined {
  const a = places.get(from);
  if (!a) return places.keys().next().value;
  let best: { seat: string; cost: number } | undefined;
  for (const [seat, b] of places) {
    if (seat === from) continue;
    const dx = b.x - a.x;
    const dy = b.y - a.y;
    const [along, across] =
      dir === 'ArrowUp' ? [-dy, dx] : dir === 'ArrowDown' ? [dy, dx] : dir === 'ArrowLeft' ? [-dx, dy] : [dx, dy];
    if (along <= 0) continue;
    const cost = along + 2 * Math.abs(across);
    if (!best || cost < best.cost) best = { seat, cost };
  }
  return best?.seat;
}
