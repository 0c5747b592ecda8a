import type { Node, NodeProps } from '@xyflow/react';
import { memo, useMemo } from 'react';
import {
  ARROW_TONES,
  arrowOf,
  type FlowEdge,
  type FlowNode,
  handleAt,
  routePath,
  type TopologyLayout,
} from './topology-layout';

/**
 * The topology's edges zoomed far out: one SVG for all of them, drawn as a node stacked over the
 * pods and under the seats, instead of React Flow's own edges (an `<svg>` each, with its wrapper
 * and its store subscription: at 200 seats, 319 of them were a good part of the tab's first
 * drawing). Each keeps its hooks (`data-edge`, `data-kind`, the path's class) and its kind's look;
 * nothing to hover or label this far out (topology-far.tsx says what calls).
 */
export type WiresNode = Node<{ edges: FlowEdge[]; places: Map<string, { x: number; y: number }> }, 'wires'>;

const NO_EDGES: FlowEdge[] = [];

/** What React Flow is given: far out, the edges as one wires node and no edge of its own. */
export function useFarFlow(
  far: boolean,
  layout: TopologyLayout,
  edges: FlowEdge[],
): { nodes: (FlowNode | WiresNode)[]; edges: FlowEdge[] } {
  return useMemo(
    () =>
      far
        ? { nodes: [...layout.nodes, wiresNode(layout.nodes, edges, layout.places)], edges: NO_EDGES }
        : { nodes: layout.nodes, edges },
    [far, layout, edges],
  );
}

/** The wires node for a layout's edges: at the rig's origin, its size, at the pods' depth. */
export function wiresNode(
  nodes: readonly FlowNode[],
  edges: FlowEdge[],
  places: Map<string, { x: number; y: number }>,
): WiresNode {
  const parent = new Map(nodes.map((n) => [n.id, n.parentId]));
  const depth = (id: string | undefined): number => (id ? 1 + depth(parent.get(id)) : -1);
  let z = 0;
  let width = 0;
  let height = 0;
  for (const n of nodes) {
    if (n.type === 'frame' && n.data.kind === 'pod') z = Math.max(z, depth(n.id));
    if (!n.parentId) {
      width = Math.max(width, n.position.x + Number(n.width ?? 0));
      height = Math.max(height, n.position.y + Number(n.height ?? 0));
    }
  }
  return {
    id: 'far-wires',
    type: 'wires',
    position: { x: 0, y: 0 },
    data: { edges, places },
    width,
    height,
    // The same depth as the pods, and after them: over the pods, under their seats (one deeper).
    zIndex: z,
    selectable: false,
    focusable: false,
    draggable: false,
    style: { pointerEvents: 'none' },
  };
}

export const WiresNodeView = memo(function WiresNodeView({ data, width, height }: NodeProps<WiresNode>) {
  return (
    <svg className="far-wires" width={width} height={height} aria-hidden="true">
      <defs>
        {ARROW_TONES.map((k) => (
          <marker
            key={k}
            id={`far-arrow-${k}`}
            viewBox="-10 -10 20 20"
            markerWidth="16"
            markerHeight="16"
            orient="auto-start-reverse"
          >
            <polyline points="-5,-4 0,0 -5,4 -5,-4" className={`far-arrow k-${k}`} />
          </marker>
        ))}
      </defs>
      {data.edges.map((e) => {
        const kind = e.data?.kind ?? 'edge';
        const arrow = `url(#far-arrow-${arrowOf(kind).tone})`;
        return (
          <g
            key={e.id}
            className={`rig-edge k-${kind}`}
            data-edge={`${e.data?.from ?? e.source}->${e.data?.to ?? e.target}`}
            data-kind={kind}
          >
            <path
              className="react-flow__edge-path"
              d={wirePath(e, data.places)}
              markerEnd={arrow}
              markerStart={arrowOf(kind).both ? arrow : undefined}
            />
          </g>
        );
      })}
    </svg>
  );
});

/** Along the layout's route; with none, straight from one seat's handle side to the other's. */
function wirePath(e: FlowEdge, places: Map<string, { x: number; y: number }>): string {
  if (e.data?.route) return routePath(e.data.route).path;
  const a = sidePoint(places.get(e.source), e.sourceHandle);
  const b = sidePoint(places.get(e.target), e.targetHandle);
  return `M${a.x},${a.y} L${b.x},${b.y}`;
}

/** A seat's handle (`s-b`: its source on the bottom side) in the flow's coordinates, as the layout places it. */
function sidePoint(
  at: { x: number; y: number } | undefined,
  handle: string | null | undefined,
): { x: number; y: number } {
  const h = handleAt(handle ?? 's-t');
  return { x: (at?.x ?? 0) + h.x, y: (at?.y ?? 0) + h.y };
}
