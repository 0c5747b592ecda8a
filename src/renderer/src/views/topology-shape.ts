import type { graphlib } from '@dagrejs/dagre';

/** What the topology's two layouts (the whole rig at once, and a big rig pod by pod) share. */

export const SEAT_W = 224;
export const SEAT_H = 66;

export type FrameKind = 'rig' | 'host' | 'pod';
/** `seats`: a pod frame's seats, which its summary counts when the view is zoomed far out. */
export type FrameData = { kind: FrameKind; label: string; rig: string; count?: number; seats?: string[] };
/** `handles`: the handle ids its edges attach to (set by the layout); a node draws only those. */
export type SeatData = { seat: string; member: string; rig: string; runtime: string; handles?: string[] };
export type Point = { x: number; y: number };
export type Box = { x: number; y: number; width: number; height: number };

export interface RigPlaced {
  width: number;
  height: number;
  frames: { id: string; parent: string | undefined; box: Box; data: FrameData }[];
  seats: { id: string; parent: string; box: Box; data: SeatData }[];
  /** Each edge's route by `from|to|kind`, in the edge's own direction. */
  routes: Map<string, Point[]>;
}

/** A node of dagre's graph: a seat carries its pod and data; dagre writes where it goes. */
export type DagreNode = { width?: number; height?: number; x?: number; y?: number; pod?: string; data?: SeatData };
/** An edge of dagre's graph, by the key of the rig's edge it lays out; dagre writes its route. */
export type DagreEdge = { minlen: number; weight: number; key: string; reversed?: boolean; points?: Point[] };

export type RigGraph = graphlib.Graph<object, DagreNode, DagreEdge>;

/**
 * A rig's edge into dagre's graph, keyed by `from|to|kind`. An escalation goes up the hierarchy:
 * laid out as the delegation it answers, so the lead stays above. Collaborators are peers: their
 * edge pulls less (dagre takes no minlen 0).
 */
export function addRigEdge(g: RigGraph, from: string, to: string, kind: string): void {
  const label = { minlen: 1, weight: kind === 'collaborates_with' ? 1 : 2, key: `${from}|${to}|${kind}` };
  if (kind === 'escalates_to') g.setEdge(to, from, { ...label, reversed: true }, kind);
  else g.setEdge(from, to, label, kind);
}

export const hostFrame = (rig: string, host: string): FrameData => ({
  kind: 'host',
  label: host === 'local' ? 'this machine' : host,
  rig,
});
