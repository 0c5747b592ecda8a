import { useMemo } from 'react';
import type { PsRow } from '../../../../shared/contract';
import type { SeatChanges } from '../../../../shared/contract/changes';
import { overlapPairs, useChanges } from '../../state/changes';
import { useWindow } from '../../state/store';
import { type FlowEdge, type Point, sides, type TopologyLayout } from '../topology-layout';

/** The spec's edges, then the overlaps over them (drawn last, on top). */
export function useEdgesWithOverlaps(layout: TopologyLayout): FlowEdge[] {
  const overlaps = useChanges((s) => s.bySeat);
  const live = useWindow((s) => liveOverlaps(s.seats));
  return useMemo(() => [...layout.edges, ...overlapEdges(overlaps, live, layout.places)], [layout, overlaps, live]);
}

/**
 * The pairs the seats push says overlap now, as one string (`a|b` per line, a < b) so a view
 * that draws them changes only when they do, not on every push.
 */
export function liveOverlaps(seats: Record<string, PsRow>): string {
  const pairs = new Set<string>();
  for (const row of Object.values(seats))
    for (const other of row.changes?.overlapsWith ?? []) pairs.add([row.seat, other].sort().join('|'));
  return [...pairs].sort().join('\n');
}

/**
 * The topology's overlaps: an edge between two seats that changed the same paths, drawn over the
 * spec's edges and gone when the overlap ends. The paths come from the last `changes.list`; the
 * seats push (`live`, the fresher of the two) decides whether the pair still overlaps. Only seats
 * the layout placed get one.
 */
export function overlapEdges(
  bySeat: Record<string, SeatChanges>,
  live: string,
  places: Map<string, Point>,
): FlowEdge[] {
  const now = new Set(live.split('\n'));
  return overlapPairs(bySeat).flatMap(({ a, b, paths }): FlowEdge[] => {
    const pa = places.get(a);
    const pb = places.get(b);
    if (!pa || !pb || !now.has(`${a}|${b}`)) return [];
    const side = sides(pa, pb);
    return [
      {
        id: `${a}<>${b}:overlaps`,
        type: 'rig',
        source: a,
        target: b,
        sourceHandle: `s-${side.source}`,
        targetHandle: `t-${side.target}`,
        data: { kind: 'overlaps', from: a, to: b, rig: bySeat[a]?.rig ?? '', note: `on ${paths.join(', ')}` },
        zIndex: 1,
        focusable: false,
        selectable: false,
      },
    ];
  });
}
