import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { RigWorld } from '../support/rig';
import { add, teeWorld } from './helpers';

/** Queue items move only along the state machine, and every move is a durable row and an event. */
describe('queue transitions (real CLI, real SQLite)', () => {
  let w: RigWorld;
  beforeEach(async () => {
    w = await teeWorld();
  });
  afterEach(() => w.cleanup());

  const q = async (...args: string[]) => {
    const r = await w.cli(['queue', ...args, '--json']);
    expect(r.json, `queue ${args.join(' ')}: ${r.code} ${r.stdout} ${r.stderr}`).toBeDefined();
    return r;
  };

  it('create, claim, block, claim, done: each move is one transition row and one event, in order', async () => {
    const id = await add(w, 'sink@q', 'fix the flaky test', ['--by', 'lead']);
    expect((await q('claim', String(id), '--by', 'sink')).json.item).toMatchObject({
      state: 'claimed',
      claimedBy: 'sink',
    });
    expect((await q('block', String(id), '--note', 'waiting on the schema')).json.item).toMatchObject({
      state: 'blocked',
      note: 'waiting on the schema',
    });
    expect((await q('claim', String(id), '--by', 'sink')).json.item.state).toBe('claimed');
    const done = await q('done', String(id), '--note', 'fixed in a1b2c3');
    expect(done.json.item).toMatchObject({ state: 'done', note: 'fixed in a1b2c3' });

    const show = await q('show', String(id));
    expect(
      show.json.transitions.map((t: { move: string; from: string | null; to: string }) => [t.move, t.from, t.to]),
    ).toEqual([
      ['create', null, 'open'],
      ['claim', 'open', 'claimed'],
      ['block', 'claimed', 'blocked'],
      ['claim', 'blocked', 'claimed'],
      ['done', 'claimed', 'done'],
    ]);
    expect(show.json.transitions.at(-1)).toMatchObject({ note: 'fixed in a1b2c3' });
    const ev = (await w.cli(['events', '--seat', 'sink@q', '--json'])).json.events.filter((e: { kind: string }) =>
      e.kind.startsWith('queue.'),
    );
    expect(ev.map((e: { kind: string; data: { move?: string } }) => e.data.move ?? e.kind)).toEqual([
      'queue.created',
      'claim',
      'block',
      'claim',
      'done',
    ]);
    // Done items leave the default list; --all shows them.
    expect((await q('list', '--seat', 'sink@q')).json.items).toEqual([]);
    expect((await q('list', '--all')).json.items.map((i: { id: number }) => i.id)).toEqual([id]);
  });

  it('illegal moves are refused with QUEUE_ILLEGAL_MOVE and change nothing; an unknown id is QUEUE_ITEM_NOT_FOUND', async () => {
    const id = String(await add(w, 'sink@q', 'one'));
    await q('done', id, '--note', 'nothing to do');
    const before = (await q('show', id)).json;
    for (const args of [
      ['claim', id],
      ['done', id, '--note', 'again'],
      ['block', id, '--note', 'x'],
      ['handoff', id, 'other@q'],
    ]) {
      const r = await q(...args);
      expect(r.code, args.join(' ')).toBe(1);
      expect(r.json).toMatchObject({
        ok: false,
        code: 'QUEUE_ILLEGAL_MOVE',
        evidence: { id: Number(id), state: 'done' },
      });
    }
    const two = String(await add(w, 'sink@q', 'two'));
    await q('claim', two);
    expect((await q('claim', two)).json.code).toBe('QUEUE_ILLEGAL_MOVE');
    expect((await q('handoff', two, 'sink@q')).json.code).toBe('QUEUE_ILLEGAL_MOVE');
    expect((await q('show', id)).json).toEqual(before);
    for (const args of [
      ['claim', '999'],
      ['show', '999'],
      ['done', '999', '--note', 'n'],
    ]) {
      const r = await q(...args);
      expect(r.json, args.join(' ')).toMatchObject({ ok: false, code: 'QUEUE_ITEM_NOT_FOUND' });
    }
  });

  it('done and block need a note; a bad id or verb is bad usage (exit 2), and nothing is written', async () => {
    const id = String(await add(w, 'sink@q', 'one'));
    for (const args of [
      ['done', id],
      ['done', id, '--note', '  '],
      ['block', id],
      ['claim', 'x1'],
      ['claim', '0'],
      ['frob', id],
      ['add', 'sink@q'],
    ]) {
      const r = await q(...args);
      expect(r.code, args.join(' ')).toBe(2);
      expect(r.json.code).toBe('BAD_USAGE');
    }
    expect((await q('show', id)).json.transitions).toHaveLength(1);
  });

  it('a handoff gives the item to another seat as open work, recorded with both seats', async () => {
    const id = String(await add(w, 'sink@q', 'review the plan'));
    await q('claim', id, '--by', 'sink');
    const h = await q('handoff', id, 'other@q', '--note', 'you know this code');
    expect(h.json.item).toMatchObject({ seat: 'other@q', state: 'open', claimedBy: null });
    const last = (await q('show', id)).json.transitions.at(-1);
    expect(last).toMatchObject({
      move: 'handoff',
      from: 'claimed',
      to: 'open',
      fromSeat: 'sink@q',
      toSeat: 'other@q',
      note: 'you know this code',
    });
    expect((await q('list', '--seat', 'other@q')).json.items.map((i: { id: number }) => i.id)).toEqual([Number(id)]);
    expect((await q('list', '--seat', 'sink@q')).json.items).toEqual([]);
  });

  it('transitions are append-only: the store refuses to update or delete one', async () => {
    await add(w, 'sink@q', 'one');
    const e = w.engine();
    expect(() => e.store.db.prepare("UPDATE queue_transitions SET note = 'rewritten'").run()).toThrow(/append-only/);
    expect(() => e.store.db.prepare('DELETE FROM queue_transitions').run()).toThrow(/append-only/);
    expect(e.store.db.prepare('SELECT COUNT(*) AS n FROM queue_transitions').get()).toEqual({ n: 1 });
  });
});

describe('queueing for a seat with no live writer', () => {
  let w: RigWorld;
  beforeEach(async () => {
    w = await teeWorld();
    expect((await w.cli(['stop', 'other@q'])).code).toBe(0);
  });
  afterEach(() => w.cleanup());

  it('is refused with QUEUE_NO_WRITER naming the opt-in, and queues nothing', async () => {
    const r = await w.cli(['queue', 'add', 'other@q', 'read me later', '--json']);
    expect(r.code).toBe(1);
    expect(r.json).toMatchObject({
      ok: false,
      code: 'QUEUE_NO_WRITER',
      evidence: { seat: 'other@q', session: 'absent' },
    });
    expect(r.json.message).toMatch(/no live writer/);
    expect(r.json.hint).toContain('--for-next-resume');
    const human = await w.cli(['queue', 'add', 'other@q', 'read me later']);
    expect(human.stderr).toContain('--for-next-resume');
    expect((await w.cli(['queue', 'list', '--all', '--json'])).json.items).toEqual([]);
  });

  it('--for-next-resume queues it, marked for the next run; a handoff to the stopped seat needs the same opt-in', async () => {
    const id = await add(w, 'other@q', 'read me later', ['--for-next-resume']);
    expect((await w.cli(['queue', 'show', String(id), '--json'])).json.item).toMatchObject({
      seat: 'other@q',
      state: 'open',
      forNextResume: true,
    });
    const mine = String(await add(w, 'sink@q', 'mine'));
    expect((await w.cli(['queue', 'handoff', mine, 'other@q', '--json'])).json.code).toBe('QUEUE_NO_WRITER');
    expect((await w.cli(['queue', 'handoff', mine, 'other@q', '--for-next-resume', '--json'])).json.item.seat).toBe(
      'other@q',
    );
  });

  it('a seat whose program has exited has no writer either', async () => {
    w.tmux.run(['send-keys', '-t', 'sink@q', 'C-d']);
    const r = await w.cli(['queue', 'add', 'sink@q', 'anyone there?', '--json']);
    expect(r.json).toMatchObject({ code: 'QUEUE_NO_WRITER', evidence: { session: 'exited' } });
  });
});
