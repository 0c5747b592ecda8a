import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { dispatch } from '../../src/main/engine/api';
import type { Engine } from '../../src/main/engine/engine';
import type { EventKind } from '../../src/main/engine/store';
import { rigTimeline } from '../../src/main/engine/workspace/rig-timeline';
import { isQuietEvent, TIMELINE_GROUPS, timelineKindOf } from '../../src/shared/contract';
import { RigWorld, shellRigYaml } from '../support/rig';

/**
 * The rig timeline's reads on a real store (a real SQLite file, a rig brought up on a private tmux
 * server): keyset pages that add up to the whole log with nothing twice, filters that match what
 * the log holds, and a query that walks an index instead of the table.
 */
describe('the rig timeline', () => {
  let w: RigWorld;
  let e: Engine;
  const KINDS: EventKind[] = [
    'seat.activity',
    'seat.send',
    'queue.moved',
    'fence.reserved',
    'decision.opened',
    'host.reachable',
  ];
  beforeAll(async () => {
    w = new RigWorld();
    e = w.engine();
    for (const rig of ['alpha', 'beta']) {
      const up = await dispatch(e, 'up', { spec: w.spec(`${rig}.yaml`, shellRigYaml(rig, ['a', 'b'])) });
      expect(up.ok).toBe(true);
    }
    e.store.db.transaction(() => {
      for (let i = 0; i < 1500; i++)
        e.store.events.append(
          KINDS[i % KINDS.length]!,
          { rig: i % 3 ? 'alpha' : 'beta', seat: `${i % 2 ? 'a' : 'b'}@${i % 3 ? 'alpha' : 'beta'}` },
          { i },
        );
    })();
  }, 60_000);
  afterAll(() => w?.cleanup());

  const expected = (rig: string, keep: (k: string, seat: string | null) => boolean = () => true) =>
    e.store.events
      .list({ rig, limit: 100_000 })
      .filter((x) => !isQuietEvent(x.kind) && keep(x.kind, x.seat))
      .map((x) => x.seq)
      .reverse();

  function walk(q: Parameters<typeof rigTimeline>[1]): number[] {
    const seqs: number[] = [];
    let before: number | undefined;
    for (;;) {
      const r = rigTimeline(e.ports, { ...q, ...(before ? { beforeSeq: before } : {}) });
      if (!r.ok) throw new Error(r.message);
      expect(r.events.length).toBeLessThanOrEqual(q.limit ?? 100);
      seqs.push(...r.events.map((x) => x.seq));
      if (!r.more) return seqs;
      before = r.events.at(-1)!.seq;
    }
  }

  it('pages newest first by seq, each page after the last one read, adding up to the log without the quiet kinds', () => {
    expect(walk({ rig: 'alpha', limit: 37 })).toEqual(expected('alpha'));
  });

  it('filters by seat and by kind as the log says, nothing of another rig', () => {
    const got = walk({ rig: 'alpha', seats: ['a@alpha'], kinds: ['send', 'decision'], limit: 50 });
    const want = expected(
      'alpha',
      (k, seat) => seat === 'a@alpha' && ['send', 'decision'].includes(timelineKindOf(k) ?? ''),
    );
    expect(want.length).toBeGreaterThan(50);
    expect(got).toEqual(want);
    expect(rigTimeline(e.ports, { rig: 'alpha', seats: ['a@beta'] })).toMatchObject({ ok: false, code: 'BAD_USAGE' });
  });

  it('no event kind is in two groups (that every kind the log takes is in one, or quiet, the compiler checks)', () => {
    const all = Object.values(TIMELINE_GROUPS).flat();
    expect(new Set(all).size).toBe(all.length);
  });

  it('reads a page on an index, never by scanning the table or sorting it', () => {
    const plan = (sql: string, ...args: unknown[]) =>
      (e.store.db.prepare(`EXPLAIN QUERY PLAN ${sql}`).all(...args) as { detail: string }[])
        .map((r) => r.detail)
        .join('\n');
    const rigPlan = plan(
      'SELECT seq FROM events WHERE rig = ? AND substr(kind, 1, 6) <> ? AND seq < ? ORDER BY seq DESC LIMIT 101',
      'alpha',
      'fence.',
      1000,
    );
    expect(rigPlan).toContain('events_by_rig');
    expect(rigPlan).not.toContain('TEMP B-TREE');
    const seatPlan = plan(
      'SELECT seq FROM events WHERE rig = ? AND seat IN (?) ORDER BY seq DESC LIMIT 101',
      'alpha',
      'a@alpha',
    );
    expect(seatPlan).toMatch(/events_by_(rig|seat)/);
    expect(seatPlan).not.toMatch(/^SCAN events$/m);
  });
});
