import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { z } from 'zod';
import { observeSeats } from '../../src/main/engine/activity/observe';
import { dispatch } from '../../src/main/engine/api';
import type { Engine } from '../../src/main/engine/engine';
import { wakeDigest } from '../../src/main/engine/queue/wake-plan';
import { type ObserveFn, queueTick } from '../../src/main/engine/queue/waker';
import type { ResultOf, WakeReport } from '../../src/shared/contract';
import type { ACTIVITY_REQUESTS } from '../../src/shared/contract/activity';
import { waitForIdle } from '../queue/helpers';
import { RigWorld } from '../support/rig';
import { waitFor } from '../support/tmux';
import { expectAnswer, expectFailure } from './support';

type Method = keyof typeof ACTIVITY_REQUESTS;
type Params<M extends Method> = z.input<(typeof ACTIVITY_REQUESTS)[M]>;
const tokenOf = (r: WakeReport) => ('token' in r ? r.token : undefined);

const TEE = (id: string) => `      - { id: ${id}, runtime: shell, cwd: ., command: tee, args: ["-a", "${id}.txt"] }`;
const SPEC = [
  'name: c',
  'pods:',
  '  - id: p',
  '    members:',
  // sink and spare for the item moves, off stays stopped, one seat per wake outcome.
  ...['sink', 'spare', 'off', 'waker', 'limit', 'inflight', 'recover'].map(TEE),
  '      - { id: busy, runtime: shell, cwd: ., command: bash, args: ["--noprofile", "--norc"] }',
].join('\n');

/**
 * Every ACTIVITY method's answer, and its variants, against its declared schema: a real engine
 * over a real store and a private tmux server, shell seats, called through `dispatch`.
 */
describe('queue answers parse against the contract (real engine, real tmux, real SQLite)', () => {
  let w: RigWorld;
  let e: Engine;

  /** One request through dispatch; its answer must parse, and it comes back typed. */
  async function answer<M extends Method>(method: M, params: Params<M>) {
    const r: ResultOf<M> = await dispatch(e, method, params);
    expectAnswer(method, r);
    if (!r.ok) throw new Error(`${method} failed: ${r.code}`);
    return r;
  }
  async function refusal<M extends Method>(method: M, params: Params<M>, code: string): Promise<void> {
    expectFailure(method, await dispatch(e, method, params), code);
  }
  const add = async (seat: string, text: string) => (await answer('queue.add', { seat, text })).item.id;
  const activity = async (seat: string) =>
    (await w.cli(['ps', '--json'])).json.seats.find((s: { seat: string }) => s.seat === seat)?.activity;

  beforeAll(async () => {
    w = new RigWorld();
    const up = await w.cli(['up', w.spec('rig.yaml', `${SPEC}\n`), '--json']);
    expect(up.code, up.stdout + up.stderr).toBe(0);
    expect((await w.cli(['stop', 'off@c', '--json'])).code).toBe(0);
    for (const s of ['sink', 'waker', 'inflight', 'recover']) await waitForIdle(w, `${s}@c`);
    await waitFor(async () => (await activity('busy@c')) === 'idle', { what: 'bash idle' });
    // Busy: the seat's foreground is a running `sleep`, not its shell.
    w.tmux.run(['send-keys', '-t', 'busy@c', 'sleep 1000', 'Enter']);
    await waitFor(async () => (await activity('busy@c')) === 'working', { what: 'sleep in front' });
    e = w.engine();
  }, 180_000);
  afterAll(() => w?.cleanup());

  const SCENARIOS: Record<Method, { what: string; run: () => Promise<void> }> = {
    'queue.add': {
      what: 'to a live seat, for the next run of a stopped one, and refused without a writer or a seat',
      run: async () => {
        const live = await answer('queue.add', { seat: 'sink@c', text: 'review the parser', by: 'lead' });
        expect(live).toMatchObject({
          writer: 'live',
          item: { state: 'open', createdBy: 'lead', forNextResume: false },
        });
        const later = await answer('queue.add', { seat: 'off@c', text: 'after the restart', forNextResume: true });
        expect(later).toMatchObject({ writer: 'none', item: { forNextResume: true, createdBy: null } });
        await refusal('queue.add', { seat: 'off@c', text: 'nobody reads this' }, 'QUEUE_NO_WRITER');
        await refusal('queue.add', { seat: 'nobody@c', text: 'x' }, 'SEAT_NOT_FOUND');
        await refusal('queue.add', { seat: 'sink@c', text: '   ' }, 'BAD_USAGE');
      },
    },
    'queue.list': {
      what: "a seat's items, every item with --all, and an unknown seat refused",
      run: async () => {
        const id = await add('spare@c', 'listed');
        const mine = await answer('queue.list', { seat: 'spare@c' });
        expect(mine.items.map((i) => i.id)).toContain(id);
        await answer('queue.done', { id, note: 'nothing to do' });
        expect((await answer('queue.list', { seat: 'spare@c' })).items.map((i) => i.id)).not.toContain(id);
        const all = await answer('queue.list', { all: true });
        expect(all.items.find((i) => i.id === id)).toMatchObject({ state: 'done', note: 'nothing to do' });
        expect((await answer('queue.list', {})).items.every((i) => i.state !== 'done')).toBe(true);
        await refusal('queue.list', { seat: 'nobody@c' }, 'SEAT_NOT_FOUND');
      },
    },
    'queue.show': {
      what: 'an item through every move, each transition typed; an unknown id refused',
      run: async () => {
        const id = await add('sink@c', 'through every move');
        await answer('queue.claim', { id, by: 'sink' });
        await answer('queue.block', { id, note: 'waiting on the schema' });
        await answer('queue.claim', { id });
        await answer('queue.handoff', { id, seat: 'spare@c', note: 'yours now', by: 'sink' });
        await answer('queue.done', { id, note: 'shipped', by: 'spare' });
        const show = await answer('queue.show', { id });
        expect(show.item).toMatchObject({ state: 'done', seat: 'spare@c', note: 'shipped' });
        expect(show.transitions.map((t) => [t.move, t.from, t.to, t.fromSeat, t.toSeat, t.actor])).toEqual([
          ['create', null, 'open', null, 'sink@c', null],
          ['claim', 'open', 'claimed', 'sink@c', 'sink@c', 'sink'],
          ['block', 'claimed', 'blocked', 'sink@c', 'sink@c', null],
          ['claim', 'blocked', 'claimed', 'sink@c', 'sink@c', null],
          ['handoff', 'claimed', 'open', 'sink@c', 'spare@c', 'sink'],
          ['done', 'open', 'done', 'spare@c', 'spare@c', 'spare'],
        ]);
        await refusal('queue.show', { id: 999_999 }, 'QUEUE_ITEM_NOT_FOUND');
        await refusal('queue.show', { id: 0 }, 'BAD_USAGE');
      },
    },
    'queue.claim': {
      what: 'an open item is claimed by its worker; claiming it again is an illegal move',
      run: async () => {
        const id = await add('sink@c', 'claim me');
        const r = await answer('queue.claim', { id, by: 'sink' });
        expect(r).toMatchObject({ from: 'open', fromSeat: 'sink@c', item: { state: 'claimed', claimedBy: 'sink' } });
        await refusal('queue.claim', { id }, 'QUEUE_ILLEGAL_MOVE');
      },
    },
    'queue.handoff': {
      what: 'to another live seat, to a stopped one only for its next run, never to itself',
      run: async () => {
        const id = await add('sink@c', 'hand me on');
        const r = await answer('queue.handoff', { id, seat: 'spare@c', note: 'you know this code' });
        expect(r).toMatchObject({ from: 'open', fromSeat: 'sink@c', item: { seat: 'spare@c', state: 'open' } });
        await refusal('queue.handoff', { id, seat: 'spare@c' }, 'QUEUE_ILLEGAL_MOVE');
        await refusal('queue.handoff', { id, seat: 'off@c' }, 'QUEUE_NO_WRITER');
        const later = await answer('queue.handoff', { id, seat: 'off@c', forNextResume: true });
        expect(later).toMatchObject({ fromSeat: 'spare@c', item: { seat: 'off@c' } });
      },
    },
    'queue.done': {
      what: 'closing says how it ended; done is final',
      run: async () => {
        const id = await add('sink@c', 'finish me');
        const r = await answer('queue.done', { id, note: 'fixed in a1b2c3' });
        expect(r).toMatchObject({ from: 'open', item: { state: 'done', note: 'fixed in a1b2c3' } });
        await refusal('queue.done', { id, note: 'again' }, 'QUEUE_ILLEGAL_MOVE');
        await refusal('queue.done', { id, note: ' ' }, 'BAD_USAGE');
      },
    },
    'queue.block': {
      what: 'blocking says why; a blocked item cannot be blocked again',
      run: async () => {
        const id = await add('sink@c', 'block me');
        const r = await answer('queue.block', { id, note: 'needs the new API' });
        expect(r).toMatchObject({ from: 'open', item: { state: 'blocked', note: 'needs the new API' } });
        await refusal('queue.block', { id, note: 'still' }, 'QUEUE_ILLEGAL_MOVE');
      },
    },
    'queue.wake': {
      what: 'woken, already woken, held, not due and not running, each as its own shape',
      run: async () => {
        const wakeOf = async (seat: string) => {
          const r = await answer('queue.wake', { seat });
          expect(r.wakes, JSON.stringify(r.wakes)).toHaveLength(1);
          return r.wakes[0]!;
        };
        await add('waker@c', 'wake me');
        const woken = await wakeOf('waker@c');
        expect(woken).toMatchObject({ outcome: 'woken', attempt: 1, token: expect.stringMatching(/^w\d+-/) });
        expect(await wakeOf('waker@c')).toEqual({
          seat: 'waker@c',
          outcome: 'already_woken',
          items: woken.items,
          token: tokenOf(woken),
        });
        await waitFor(() => readFileSync(join(w.root, 'waker.txt'), 'utf8').includes(`(wake ${tokenOf(woken)})`), {
          what: 'the notice typed into the seat',
        });

        await add('busy@c', 'when you have a moment');
        expect(await wakeOf('busy@c')).toMatchObject({ outcome: 'held', why: 'held:working', attempt: 1 });
        expect(await wakeOf('busy@c')).toMatchObject({ outcome: 'not_due', nextAt: expect.any(Number) });

        await answer('queue.add', { seat: 'off@c', text: 'for its next run', forNextResume: true });
        const off = await wakeOf('off@c');
        expect(off).toEqual({ seat: 'off@c', outcome: 'not_running', items: expect.any(Array) });
        expect(off.items.length).toBeGreaterThan(0);
        await refusal('queue.wake', { seat: 'nobody@c' }, 'SEAT_NOT_FOUND');
        // Every seat at once: the seats above answer again, none of them typed twice.
        const all = await answer('queue.wake', {});
        expect(all.wakes.find((r) => r.seat === 'waker@c')?.outcome).toBe('already_woken');
      },
    },
  };

  for (const [method, s] of Object.entries(SCENARIOS)) it(`${method}: ${s.what}`, s.run, 120_000);

  it('queue.wake: a row another live waker holds is in flight (the row is written by the test, held by its own pid)', async () => {
    const id = await add('inflight@c', 'someone is typing this');
    const live = e.store.sessions.live('inflight@c')!;
    const me = { pid: process.pid, start: e.deps.proc.read(process.pid)?.startTime ?? null };
    const item = e.store.queue.get(id)!;
    const row = e.store.queue.wakes.insert(
      { seat: 'inflight@c', sessionRow: live.id, digest: wakeDigest([item]), items: [id] },
      { state: 'pending', attempts: 1, nextAt: e.now(), lastResult: 'typing', holder: me },
    )!;
    const r = await answer('queue.wake', { seat: 'inflight@c' });
    expect(r.wakes).toEqual([{ seat: 'inflight@c', outcome: 'in_flight', items: [id], token: row.token }]);
  });

  it('queue.wake: an interrupted try whose notice is on the screen is recovered, not typed again (the row is written by the test)', async () => {
    const id = await add('recover@c', 'typed before a crash');
    const live = e.store.sessions.live('recover@c')!;
    const item = e.store.queue.get(id)!;
    // A try that was typing when its process died: no holder left, the last result says "typing".
    const row = e.store.queue.wakes.insert(
      { seat: 'recover@c', sessionRow: live.id, digest: wakeDigest([item]), items: [id] },
      { state: 'pending', attempts: 1, nextAt: e.now(), lastResult: 'typing' },
    )!;
    w.tmux.run(['send-keys', '-t', 'recover@c', '-l', `[rigdesk] 1 queued item(s) (wake ${row.token})`]);
    w.tmux.run(['send-keys', '-t', 'recover@c', 'Enter']);
    await waitFor(() => w.tmux.capture('recover@c').includes(row.token), { what: 'the token on screen' });
    const r = await answer('queue.wake', { seat: 'recover@c' });
    expect(r.wakes).toEqual([{ seat: 'recover@c', outcome: 'recovered', items: [id], token: row.token, attempt: 1 }]);
    expect((await answer('queue.wake', { seat: 'recover@c' })).wakes[0]).toMatchObject({ outcome: 'already_woken' });
  });

  it('queue.wake: a seat at its usage limit parks its wake (the limit is stood in by an injected observation)', async () => {
    await add('limit@c', 'after the limit');
    const observe: ObserveFn = async (eng, seats) => {
      const m = await observeSeats(eng, await eng.roster(), seats);
      for (const o of m.values()) o.activity = { ...o.activity, needsInput: 'usage_limit' };
      return m;
    };
    const wakes = await queueTick(e.ports, { seat: 'limit@c', observe });
    const body = expectAnswer('queue.wake', { ok: true, wakes });
    expect(body.wakes).toEqual([
      expect.objectContaining({ outcome: 'parked', why: 'needs_input:usage_limit', nextAt: expect.any(Number) }),
    ]);
    // Nothing was typed: the seat's program never saw a notice.
    const typed = join(w.root, 'limit.txt');
    expect(existsSync(typed) ? readFileSync(typed, 'utf8') : '').not.toContain('[rigdesk]');
  });
});
