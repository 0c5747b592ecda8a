import { useMemo } from 'react';
import type { PsRow } from '../../../../shared/contract';
import type { SeatChanges } from '../../../../shared/contract/changes';
import { overlapPairs, useChanges } from '../../state/changes';
import { useWindow } from '../../state/store';
import { type FlowEdge, type Point, SEAT_H, SEAT_W, type TopologyLayout } from '../topology-layout';

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
    const { side, route } = bow(pa, pb);
    return [
      {
        id: `${a}<>${b}:overlaps`,
        type: 'rig',
        source: a,
        target: b,
        sourceHandle: `s-${side}`,
        targetHandle: `t-${side}`,
        data: { kind: 'overlaps', from: a, to: b, rig: bySeat[a]?.rig ?? '', route, note: paths.join(', ') },
        zIndex: 1,
        focusable: false,
        selectable: false,
      },
    ];
  });
}

/** How far an overlap bows out from the seats' sides, so it never hides under a spec edge between them. */
const BOW = 90;

/**
 * An overlap's route: out of both seats on the same side (the right of seats one above the other,
 * the bottom of seats side by side) and bowed away from them, where the spec's edges never run.
 */
function bow(a: Point, b: Point): { side: 'r' | 'b'; route: Point[] } {
  const stacked = Math.abs(b.y - a.y) >= SEAT_H;
  if (stacked) {
    const x = Math.max(a.x, b.x) + SEAT_W;
    const p = { x: a.x + SEAT_W, y: a.y + SEAT_H / 2 };
    const q = { x: b.x + SEAT_W, y: b.y + SEAT_H / 2 };
    return { side: 'r', route: [p, { x: x + BOW, y: (p.y + q.y) / 2 }, q] };
  }
  const y = Math.max(a.y, b.y) + SEAT_H;
  const p = { x: a.x + SEAT_W / 2, y: a.y + SEAT_H };
  const q = { x: b.x + SEAT_W / 2, y: b.y + SEAT_H };
  return { side: 'b', route: [p, { x: (p.x + q.x) / 2, y: y + BOW }, q] };
}
