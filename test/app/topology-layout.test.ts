import { describe, expect, it } from 'vitest';
import type { Topology } from '../../src/shared/contract';
import { layoutKey, layoutTopology, nextSeat, SEAT_H, SEAT_W } from '../../src/renderer/src/views/topology-layout';
import { createElement } from 'react';
import { renderToStaticMarkup } from 'react-dom/server';
import { WiresNodeView, wiresNode } from '../../src/renderer/src/views/topology-wires';

const seat = (m: string, rig = 'duo') => ({ seat: `${m}@${rig}`, member: m, runtime: 'shell', cwd: '/w' });
const TOPO: Topology = {
  rigs: [
    {
      name: 'duo',
      pods: [
        { id: 'alpha', seats: ['lead', 'coder', 'tester'].map((m) => seat(m)) },
        { id: 'beta', seats: ['reviewer', 'docs', 'ops'].map((m) => seat(m)) },
      ],
      edges: [
        { from: 'lead', to: 'coder', kind: 'delegates_to' },
        { from: 'lead', to: 'reviewer', kind: 'delegates_to' },
        { from: 'coder', to: 'lead', kind: 'escalates_to' },
        { from: 'coder', to: 'tester', kind: 'collaborates_with' },
        { from: 'reviewer', to: 'docs', kind: 'collaborates_with' },
      ],
    },
  ],
};
const local = () => 'local';

type Box = { x: number; y: number; w: number; h: number };
const overlap = (a: Box, b: Box) => a.x < b.x + b.w && b.x < a.x + a.w && a.y < b.y + b.h && b.y < a.y + a.h;

/** The topology's layout, pure (no window): what it places, and that it depends on the shape only. */
describe('topology layout', () => {
  it('places every seat in its pod, inside its host and rig, with no two seats overlapping', () => {
    const l = layoutTopology(TOPO, local);
    const seats = l.nodes.filter((n) => n.type === 'seat');
    expect(seats.map((n) => n.id).sort()).toEqual(TOPO.rigs[0]!.pods.flatMap((p) => p.seats.map((s) => s.seat)).sort());
    expect(l.edges).toHaveLength(5);
    const boxes = [...l.places].map(([, p]) => ({ x: p.x, y: p.y, w: SEAT_W, h: SEAT_H }));
    for (let i = 0; i < boxes.length; i++)
      for (let j = i + 1; j < boxes.length; j++) expect(overlap(boxes[i]!, boxes[j]!)).toBe(false);
    const byId = new Map(l.nodes.map((n) => [n.id, n]));
    for (const s of seats) {
      const pod = byId.get(s.parentId!)!;
      expect(pod.type === 'frame' && pod.data.kind === 'pod').toBe(true);
      // Relative to its pod, the seat lies inside it.
      const w = Number(pod.style?.width);
      const h = Number(pod.style?.height);
      expect(s.position.x).toBeGreaterThanOrEqual(0);
      expect(s.position.y).toBeGreaterThanOrEqual(0);
      expect(s.position.x + SEAT_W).toBeLessThanOrEqual(w + 0.5);
      expect(s.position.y + SEAT_H).toBeLessThanOrEqual(h + 0.5);
    }
    // Parents come before their children, as React Flow needs.
    const seen = new Set<string>();
    for (const n of l.nodes) {
      if (n.parentId) expect(seen.has(n.parentId)).toBe(true);
      seen.add(n.id);
    }
  });

  it('the key holds the shape and the hosts, nothing else: equal keys lay out the same', () => {
    const a = layoutTopology(TOPO, local);
    const b = layoutTopology(structuredClone(TOPO), local);
    expect(b.nodes.map((n) => [n.id, n.position])).toEqual(a.nodes.map((n) => [n.id, n.position]));
    expect(layoutKey(structuredClone(TOPO), local)).toBe(layoutKey(TOPO, local));
    expect(layoutKey(TOPO, (s) => (s === 'ops@duo' ? 'far' : 'local'))).not.toBe(layoutKey(TOPO, local));
  });

  it('a seat on another host gets its own host frame', () => {
    const l = layoutTopology(TOPO, (s) => (s === 'ops@duo' ? 'far' : 'local'));
    expect(l.nodes.flatMap((n) => (n.type === 'frame' && n.data.kind === 'host' ? [n.data.label] : [])).sort()).toEqual(
      ['far', 'this machine'],
    );
  });

  it('the arrow keys go to the nearest seat that way, and nowhere past the edge', () => {
    const places = new Map([
      ['a', { x: 0, y: 0 }],
      ['b', { x: 300, y: 0 }],
      ['c', { x: 0, y: 200 }],
      ['d', { x: 280, y: 220 }],
    ]);
    expect(nextSeat(places, 'a', 'ArrowRight')).toBe('b');
    expect(nextSeat(places, 'a', 'ArrowDown')).toBe('c');
    expect(nextSeat(places, 'b', 'ArrowDown')).toBe('d');
    expect(nextSeat(places, 'a', 'ArrowUp')).toBeUndefined();
    expect(nextSeat(places, 'd', 'ArrowLeft')).toBe('c');
  });

  it('a rig of 200 seats (over PACK_OVER) is laid out pod by pod and packed to a screen shape, not one strip', () => {
    // 20 pods of 10, each lead delegating to its members, the first lead to every other lead.
    const pods = Array.from({ length: 20 }, (_, p) => ({
      id: `pod${p + 1}`,
      seats: Array.from({ length: 10 }, (_, m) => seat(`p${p + 1}m${m + 1}`, 'big')),
    }));
    const edges = pods.flatMap((pod, p) => [
      ...pod.seats.slice(1).map((s) => ({ from: `p${p + 1}m1`, to: s.member, kind: 'delegates_to' })),
      ...(p > 0 ? [{ from: 'p1m1', to: `p${p + 1}m1`, kind: 'delegates_to' }] : []),
    ]);
    const big: Topology = { rigs: [{ name: 'big', pods, edges }] };
    const l = layoutTopology(big, local);
    const boxes = [...l.places].map(([id, p]) => ({ id, x: p.x, y: p.y, w: SEAT_W, h: SEAT_H }));
    expect(boxes).toHaveLength(200);
    for (let i = 0; i < boxes.length; i++)
      for (let j = i + 1; j < boxes.length; j++) expect(overlap(boxes[i]!, boxes[j]!)).toBe(false);
    // Each seat inside its pod's frame, and no two pod frames overlapping.
    const byId = new Map(l.nodes.map((n) => [n.id, n]));
    const podBoxes = l.nodes
      .filter((n) => n.type === 'frame' && n.data.kind === 'pod')
      .map((n) => ({ x: n.position.x, y: n.position.y, w: Number(n.style?.width), h: Number(n.style?.height) }));
    expect(podBoxes).toHaveLength(20);
    for (let i = 0; i < podBoxes.length; i++)
      for (let j = i + 1; j < podBoxes.length; j++) expect(overlap(podBoxes[i]!, podBoxes[j]!)).toBe(false);
    for (const n of l.nodes.filter((x) => x.type === 'seat')) {
      const pod = byId.get(n.parentId!)!;
      expect(pod.type === 'frame' && pod.data.kind === 'pod').toBe(true);
      expect(n.position.x + SEAT_W).toBeLessThanOrEqual(Number(pod.style?.width) + 0.5);
      expect(n.position.y + SEAT_H).toBeLessThanOrEqual(Number(pod.style?.height) + 0.5);
    }
    // The whole rig is about a screen's shape (the compound layout made it 66 times wider than tall).
    const width = Math.max(...boxes.map((b) => b.x + b.w));
    const height = Math.max(...boxes.map((b) => b.y + b.h));
    expect(width / height).toBeGreaterThan(0.8);
    expect(width / height).toBeLessThan(3);
    // Every edge is drawn: inside a pod through dagre's route, between pods as a curve.
    expect(l.edges).toHaveLength(edges.length);
    expect(l.edges.find((e) => e.id === 'p1m1@big->p1m2@big:delegates_to')?.data?.route?.length).toBeGreaterThan(1);
    expect(l.edges.find((e) => e.id === 'p1m1@big->p2m1@big:delegates_to')?.data?.route).toBeUndefined();
  });

  it("gives React Flow each seat's size and the handles its edges use, and each frame its size, so nothing waits to be measured", () => {
    const l = layoutTopology(TOPO, local);
    for (const n of l.nodes) expect([n.id, n.width, n.height]).toEqual([n.id, expect.any(Number), expect.any(Number)]);
    for (const e of l.edges) {
      const ends = [
        [e.source, e.sourceHandle, 'source'],
        [e.target, e.targetHandle, 'target'],
      ] as const;
      for (const [id, handle, type] of ends) {
        const h = l.nodes.find((n) => n.id === id)?.handles?.find((x) => x.id === handle);
        expect(h, `${id} has ${handle}`).toMatchObject({ type });
        expect(h!.x).toBeGreaterThanOrEqual(0);
        expect(h!.x).toBeLessThanOrEqual(SEAT_W);
        expect(h!.y).toBeGreaterThanOrEqual(0);
        expect(h!.y).toBeLessThanOrEqual(SEAT_H);
      }
    }
  });

  it("names each rig and pod for the far view, at its frame's place, with its seats", () => {
    const l = layoutTopology(TOPO, local);
    expect(l.tags.map((t) => [t.kind, t.label, t.seats.length])).toEqual([
      ['rig', 'duo', 0],
      ['pod', 'alpha', 3],
      ['pod', 'beta', 3],
    ]);
    for (const t of l.tags.filter((x) => x.kind === 'pod'))
      for (const seat of t.seats) {
        const at = l.places.get(seat)!;
        expect(at.x).toBeGreaterThan(t.at.x);
        expect(at.y).toBeGreaterThan(t.at.y);
      }
  });

  it("puts the far view's edges at the pods' depth (over them, under their seats), over the whole rig", () => {
    const l = layoutTopology(TOPO, local);
    const w = wiresNode(l.nodes, l.edges, l.places);
    const parent = new Map(l.nodes.map((n) => [n.id, n.parentId]));
    const depth = (id: string | undefined): number => (id ? 1 + depth(parent.get(id)) : -1);
    for (const n of l.nodes) {
      if (n.type === 'seat') expect(depth(n.id)).toBeGreaterThan(w.zIndex!);
      if (n.type === 'frame' && n.data.kind === 'pod') expect(depth(n.id)).toBeLessThanOrEqual(w.zIndex!);
    }
    for (const p of l.places.values()) {
      expect(p.x + SEAT_W).toBeLessThanOrEqual(w.width!);
      expect(p.y + SEAT_H).toBeLessThanOrEqual(w.height!);
    }
    expect(w.data.edges).toBe(l.edges);
  });

  it('draws each kind with the same arrows near and far out: one, or two for collaboration, muted for a kind it does not know', () => {
    const t = structuredClone(TOPO);
    t.rigs[0]!.edges.push({ from: 'ops', to: 'docs', kind: 'watches' });
    const l = layoutTopology(t, local);
    const near = new Map(
      l.edges.map((e) => {
        const end = e.markerEnd as { color?: string } | undefined;
        return [`${e.data?.from}->${e.data?.to}`, { end: end?.color, start: !!e.markerStart }];
      }),
    );
    const w = wiresNode(l.nodes, l.edges, l.places);
    const svg = renderToStaticMarkup(createElement(WiresNodeView, { data: w.data, width: 100, height: 100 } as never));
    const far = new Map(
      [
        ...svg.matchAll(
          /data-edge="([^"]+)"[^>]*>\s*<path[^>]*?marker-end="url\(#far-arrow-(\w+)\)"(?:\s+marker-start="([^"]+)")?/g,
        ),
      ].map((m) => [m[1]!.replace('&gt;', '>'), { tone: m[2], start: !!m[3] }]),
    );
    const tone = (color: string | undefined) =>
      color === 'var(--muted)' ? 'muted' : color?.match(/--edge-(\w+)/)?.[1];
    expect(far.size).toBe(near.size);
    for (const [edge, n] of near) expect(far.get(edge), edge).toEqual({ tone: tone(n.end), start: n.start });
    expect(near.get('ops@duo->docs@duo')).toEqual({ end: 'var(--muted)', start: false });
    expect(near.get('coder@duo->tester@duo')).toEqual({ end: 'var(--edge-collaborates)', start: true });
    for (const k of ['delegates', 'escalates', 'collaborates', 'muted']) expect(svg).toContain(`id="far-arrow-${k}"`);
  });
});
