import dagre from '@dagrejs/dagre';
import type { Topology } from '../../../shared/contract';
import { addRigEdge, hostFrame, type Point, type RigGraph, type RigPlaced, SEAT_H, SEAT_W } from './topology-shape';

/**
 * Above this many seats a rig is laid out pod by pod: dagre's compound layout of the whole rig took
 * 0.8-1.4 s for 200 seats here (bench/window-200) and put every pod side by side in one strip tens
 * of thousands of pixels wide. Each pod alone is a few milliseconds, and the pods are then packed
 * in rows, so the rig fits a screen's shape; an edge between two pods is drawn as a curve.
 */
export const PACK_OVER = 60;
const POD_PAD = 14;
const FRAME_HEAD = 26;
const PACK_GAP = 36;
/** The shape the packed pods aim for (a wide screen's). */
const PACK_ASPECT = 1.6;

type Member = { seat: string; member: string; runtime: string };

type Box = { x: number; y: number; width: number; height: number };
/** A pod laid out by position: seat i's box, each edge's route between seats i and j, the pod's size. */
type PodShape = {
  boxes: Box[];
  routes: { i: number; j: number; kind: string; pts: Point[] }[];
  width: number;
  height: number;
};

/**
 * Pods of the same shape (as many seats, the same edges between the same positions) lay out the
 * same: dagre runs once per shape, not once per pod (a 200-seat rig of like pods is one run, not
 * twenty). Kept for the page's life; a few shapes at most.
 */
const shapes = new Map<string, PodShape>();
const SHAPES_KEPT = 200;

/** One pod's seats on one host, with the rig's edges between them; boxes and routes from 0,0. */
function placePod(rig: Topology['rigs'][number], seats: Member[], memberSeat: Map<string, string>) {
  const index = new Map(seats.map((s, i) => [s.seat, i]));
  const links: [number, number, string][] = [];
  for (const e of rig.edges) {
    const i = index.get(memberSeat.get(e.from) ?? '');
    const j = index.get(memberSeat.get(e.to) ?? '');
    if (i !== undefined && j !== undefined && i !== j) links.push([i, j, e.kind]);
  }
  const key = JSON.stringify([seats.length, links]);
  let shape = shapes.get(key);
  if (!shape) {
    if (shapes.size >= SHAPES_KEPT) shapes.clear();
    shape = podShape(seats.length, links);
    shapes.set(key, shape);
  }
  const name = (i: number) => seats[i]!.seat;
  return {
    seatBoxes: seats.map((s, i) => ({ s, box: { ...shape.boxes[i]! } })),
    routes: new Map(shape.routes.map((r) => [`${name(r.i)}|${name(r.j)}|${r.kind}`, r.pts])),
    width: shape.width,
    height: shape.height,
  };
}

/** dagre on a pod of `n` seats named by position, with its edges by position. */
function podShape(n: number, links: [number, number, string][]): PodShape {
  const g: RigGraph = new dagre.graphlib.Graph({ multigraph: true });
  g.setGraph({ rankdir: 'TB', nodesep: 24, ranksep: 50, marginx: 0, marginy: 0 });
  for (let i = 0; i < n; i++) g.setNode(String(i), { width: SEAT_W, height: SEAT_H });
  for (const [i, j, kind] of links) addRigEdge(g, String(i), String(j), kind);
  dagre.layout(g);
  const boxes = Array.from({ length: n }, (_, i) => {
    const d = g.node(String(i));
    return { x: (d.x ?? 0) - SEAT_W / 2, y: (d.y ?? 0) - SEAT_H / 2, width: SEAT_W, height: SEAT_H };
  });
  const routes = g.edges().map((e) => {
    const label = g.edge(e);
    const [i, j, ...kind] = label.key.split('|');
    const pts = label.points ?? [];
    return { i: Number(i), j: Number(j), kind: kind.join('|'), pts: label.reversed ? [...pts].reverse() : pts };
  });
  const width = Math.max(...boxes.map((b) => b.x + b.width), SEAT_W);
  const height = Math.max(...boxes.map((b) => b.y + b.height), SEAT_H);
  return { boxes, routes, width: width + 2 * POD_PAD, height: height + FRAME_HEAD + POD_PAD };
}

/** Boxes of the given sizes in rows of `cols`, left to right; where each goes and the whole size. */
function shelves(sizes: { width: number; height: number }[], cols: number) {
  const at: Point[] = [];
  let [x, y, rowH, width] = [0, 0, 0, 0];
  sizes.forEach((b, i) => {
    if (i > 0 && i % cols === 0) [x, y, rowH] = [0, y + rowH + PACK_GAP, 0];
    at.push({ x, y });
    x += b.width + PACK_GAP;
    width = Math.max(width, x - PACK_GAP);
    rowH = Math.max(rowH, b.height);
  });
  return { at, width, height: y + rowH };
}

/** The number of pods a row that makes the host's block closest to PACK_ASPECT. */
function bestColumns(sizes: { width: number; height: number }[]): number {
  let best = { cols: 1, off: Number.POSITIVE_INFINITY };
  for (let cols = 1; cols <= sizes.length; cols++) {
    const { width, height } = shelves(sizes, cols);
    const off = Math.abs(Math.log(width / Math.max(1, height) / PACK_ASPECT));
    if (off < best.off) best = { cols, off };
  }
  return best.cols;
}

/** A big rig: each pod laid out alone, the pods packed in rows inside their host's frame, hosts stacked. */
export function placeRigPacked(rig: Topology['rigs'][number], hostOf: (seat: string) => string): RigPlaced {
  const memberSeat = new Map(rig.pods.flatMap((p) => p.seats.map((s) => [s.member, s.seat] as const)));
  const byHost = new Map<string, { pod: string; seats: Member[] }[]>();
  for (const pod of rig.pods) {
    const groups = new Map<string, Member[]>();
    for (const s of pod.seats) groups.set(hostOf(s.seat), [...(groups.get(hostOf(s.seat)) ?? []), s]);
    for (const [host, seats] of groups) byHost.set(host, [...(byHost.get(host) ?? []), { pod: pod.id, seats }]);
  }
  const placed: RigPlaced = { width: 0, height: 0, frames: [], seats: [], routes: new Map() };
  let top = 0;
  for (const [host, pods] of byHost) {
    const hostId = `host:${rig.name}:${host}`;
    const laid = pods.map((p) => ({ ...p, ...placePod(rig, p.seats, memberSeat) }));
    const grid = shelves(laid, bestColumns(laid));
    const hostBox = { x: 0, y: top, width: grid.width + 2 * POD_PAD, height: grid.height + FRAME_HEAD + POD_PAD };
    placed.frames.push({ id: hostId, parent: undefined, box: hostBox, data: hostFrame(rig.name, host) });
    laid.forEach((p, i) => {
      const podId = `pod:${rig.name}:${host}:${p.pod}`;
      const box = { x: POD_PAD + grid.at[i]!.x, y: top + FRAME_HEAD + grid.at[i]!.y, width: p.width, height: p.height };
      placed.frames.push({
        id: podId,
        parent: hostId,
        box,
        data: { kind: 'pod', label: p.pod, rig: rig.name, seats: p.seats.map((s) => s.seat) },
      });
      const dx = box.x + POD_PAD;
      const dy = box.y + FRAME_HEAD;
      for (const { s, box: b } of p.seatBoxes)
        placed.seats.push({
          id: s.seat,
          parent: podId,
          box: { ...b, x: b.x + dx, y: b.y + dy },
          data: { ...s, rig: rig.name },
        });
      for (const [key, pts] of p.routes)
        placed.routes.set(
          key,
          pts.map((q) => ({ x: q.x + dx, y: q.y + dy })),
        );
    });
    placed.width = Math.max(placed.width, hostBox.width);
    top += hostBox.height + PACK_GAP;
  }
  placed.height = Math.max(0, top - PACK_GAP);
  return placed;
}
