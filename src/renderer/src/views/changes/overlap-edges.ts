import type { SeatChanges } from '../../../../shared/contract/changes';
import { overlapPairs } from '../../state/changes';
import type { FlowEdge, Point } from '../topology-layout';

/**
 * The topology's overlaps: an edge between two seats that changed the same paths, drawn over the
 * spec's edges and gone when the overlap ends. Only seats the layout placed get one.
 */
export function overlapEdges(bySeat: Record<string, SeatChanges>, places: Map<string, Point>): FlowEdge[] {
  return overlapPairs(bySeat).flatMap(({ a, b }): FlowEdge[] => {
    const pa = places.get(a);
    const pb = places.get(b);
    if (!pa || !pb) return [];
    const down = Math.abs(pb.y - pa.y) > Math.abs(pb.x - pa.x);
    const [s, t] = down ? (pb.y > pa.y ? ['b', 't'] : ['t', 'b']) : pb.x >= pa.x ? ['r', 'l'] : ['l', 'r'];
    return [
      {
        id: `${a}<>${b}:overlaps`,
        type: 'rig',
        source: a,
        target: b,
        sourceHandle: `s-${s}`,
        targetHandle: `t-${t}`,
        data: { kind: 'overlaps', from: a, to: b, rig: bySeat[a]?.rig ?? '' },
        focusable: false,
        selectable: false,
      },
    ];
  });
}
