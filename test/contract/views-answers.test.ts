import { writeFileSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { dispatch } from '../../src/main/engine/api';
import { layoutPath } from '../../src/main/engine/workspace/layout';
import type { VIEW_REQUESTS } from '../../src/shared/contract/workspace';
import { type AppWorld, appWorld, WireClient } from '../app/helpers';
import { expectAnswer, expectFailure } from './support';

/**
 * The centre views' requests (the rig timeline's pages, the open handoffs) on a real engine through
 * `rigdesk serve`'s WebSocket (real tmux, real SQLite), each answer parsed against its declared
 * schema, its variants and its refusals included.
 */
let w: AppWorld;
let c: WireClient;
let handed = 0;
beforeAll(async () => {
  w = await appWorld('views', ['lead', 'worker']);
  const add = await dispatch(w.engine, 'queue.add', { seat: 'lead@views', text: 'split the module\nand test it' });
  if (!add.ok) throw new Error(add.message);
  handed = add.item.id;
  expect(await dispatch(w.engine, 'queue.handoff', { id: handed, seat: 'worker@views', by: 'lead' })).toMatchObject({
    ok: true,
  });
  c = await WireClient.open(w.serve);
}, 120_000);
afterAll(async () => {
  c?.close();
  await w?.cleanup();
});

const VIEWS: Record<keyof typeof VIEW_REQUESTS, () => Promise<void>> = {
  'workspace.rigTimeline': async () => {
    const first = expectAnswer(
      'workspace.rigTimeline',
      await c.call('workspace.rigTimeline', { rig: 'views', limit: 2 }),
    );
    const events = first.events as { seq: number }[];
    expect(events).toHaveLength(2);
    expect(first.more).toBe(true);
    const next = expectAnswer(
      'workspace.rigTimeline',
      await c.call('workspace.rigTimeline', {
        rig: 'views',
        seats: ['worker@views'],
        kinds: ['launch', 'queue'],
        beforeSeq: events[1]!.seq,
        limit: 500,
      }),
    );
    expect((next.events as { seq: number }[]).every((e) => e.seq < events[1]!.seq)).toBe(true);
    expect(next.more).toBe(false);
    expectFailure('workspace.rigTimeline', await c.call('workspace.rigTimeline', { rig: 'nope' }), 'RIG_NOT_FOUND');
    expectFailure(
      'workspace.rigTimeline',
      await c.call('workspace.rigTimeline', { rig: 'views', seats: ['ghost@views'] }),
      'SEAT_NOT_FOUND',
    );
    expectFailure(
      'workspace.rigTimeline',
      await c.call('workspace.rigTimeline', { rig: 'views', kinds: ['fence'] }),
      'BAD_USAGE',
    );
  },
  'workspace.handoffs': async () => {
    const all = expectAnswer('workspace.handoffs', await c.call('workspace.handoffs', {}));
    expect(all.handoffs).toEqual([
      expect.objectContaining({
        id: handed,
        from: 'lead@views',
        to: 'worker@views',
        state: 'open',
        title: 'split the module',
      }),
    ]);
    expectAnswer('workspace.handoffs', await c.call('workspace.handoffs', { rig: 'views' }));
    expectFailure('workspace.handoffs', await c.call('workspace.handoffs', { rig: 'nope' }), 'RIG_NOT_FOUND');
  },
};

describe('the centre views answers over rigdesk serve', () => {
  for (const [method, run] of Object.entries(VIEWS)) it(method, run, 60_000);

  it('a layout saved before the centre had views still loads (as the grid), and one with a view keeps it', async () => {
    const old = {
      grid: '1x2',
      slots: ['lead@views', null],
      pinned: [true, false],
      focus: 0,
      magnified: false,
      rail: true,
      panel: 'details',
    };
    writeFileSync(layoutPath(w.engine.ports), `${JSON.stringify(old)}\n`);
    const back = expectAnswer('workspace.layout', await c.call('workspace.layout', {}));
    expect(back.layout).toEqual(old);
    expectAnswer(
      'workspace.saveLayout',
      await c.call('workspace.saveLayout', { layout: { ...old, view: 'timeline' } }),
    );
    expect(expectAnswer('workspace.layout', await c.call('workspace.layout', {})).layout).toEqual({
      ...old,
      view: 'timeline',
    });
    expectFailure(
      'workspace.saveLayout',
      await c.call('workspace.saveLayout', { layout: { ...old, view: 'map' } }),
      'BAD_USAGE',
    );
  });
});
