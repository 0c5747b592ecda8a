import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { SeatActivity } from '../../src/main/engine/activity/decide';
import { checkMove, QUEUE_MOVES, type QueueState } from '../../src/main/engine/queue/moves';
import {
  ladderDelay,
  planWake,
  wakeDigest,
  wakeGate,
  wakeNotice,
  type WakeRowState,
} from '../../src/main/engine/queue/wake-plan';
import { Store } from '../../src/main/engine/store';

const act = (a: Partial<SeatActivity>): SeatActivity => ({
  session: 'present',
  activity: 'idle',
  needsInput: 'none',
  basis: [],
  at: 0,
  ...a,
});
const row = (r: Partial<WakeRowState>): WakeRowState => ({
  state: 'pending',
  nextAt: 0,
  lastResult: null,
  holder: null,
  ...r,
});

describe('the wake decisions (pure)', () => {
  it('the ladder is 5 s, 15 s, 60 s, 5 min, and its last rung repeats', () => {
    expect([1, 2, 3, 4, 5, 9, 100].map(ladderDelay)).toEqual([
      5_000, 15_000, 60_000, 300_000, 300_000, 300_000, 300_000,
    ]);
  });

  it('the digest is the same for the same items in any order and changes with any id or update', () => {
    const items = [
      { id: 1, updatedAt: 10 },
      { id: 2, updatedAt: 20 },
    ];
    expect(wakeDigest(items)).toBe(wakeDigest([...items].reverse()));
    expect(wakeDigest(items)).not.toBe(wakeDigest([{ id: 1, updatedAt: 11 }, items[1]!]));
    expect(wakeDigest(items)).not.toBe(wakeDigest([items[0]!]));
    expect(wakeDigest(items)).not.toBe(wakeDigest([...items, { id: 3, updatedAt: 30 }]));
  });

  it('only an idle seat with no prompt and no draft may be woken; a usage limit parks', () => {
    expect(wakeGate(act({}))).toEqual({ may: true });
    expect(wakeGate(act({ needsInput: 'usage_limit' }))).toMatchObject({ may: false, park: true });
    expect(wakeGate(act({ needsInput: 'permission' }))).toMatchObject({
      may: false,
      park: false,
      why: 'needs_input:permission',
    });
    expect(wakeGate(act({ draft: 'half a thought' }))).toMatchObject({ may: false, why: 'draft' });
    expect(wakeGate(act({ activity: 'working' }))).toMatchObject({ may: false, why: 'working' });
    expect(wakeGate(act({ activity: 'unknown' }))).toMatchObject({ may: false, why: 'unknown' });
    expect(wakeGate(act({ session: 'exited' }))).toMatchObject({ may: false, why: 'session:exited' });
  });

  it('a sent row is never typed again; an interrupted try looks at the screen first; a live holder is left alone', () => {
    expect(planWake(undefined, 0, false)).toEqual({ kind: 'attempt', checkScreen: false });
    expect(planWake(row({ state: 'sent', holder: { pid: 1, start: null } }), 0, false)).toEqual({
      kind: 'skip',
      why: 'already_woken',
    });
    expect(planWake(row({ holder: { pid: 1, start: 's' }, lastResult: 'typing' }), 0, true)).toEqual({
      kind: 'skip',
      why: 'in_flight',
    });
    expect(planWake(row({ holder: { pid: 1, start: 's' }, lastResult: 'typing' }), 0, false)).toEqual({
      kind: 'attempt',
      checkScreen: true,
    });
    expect(planWake(row({ lastResult: 'failed:TMUX_FAILED', nextAt: 5 }), 5, false)).toEqual({
      kind: 'attempt',
      checkScreen: true,
    });
    expect(planWake(row({ lastResult: 'held:working', nextAt: 5 }), 4, false)).toEqual({
      kind: 'skip',
      why: 'not_due',
    });
    expect(planWake(row({ lastResult: 'held:working', nextAt: 5 }), 5, false)).toEqual({
      kind: 'attempt',
      checkScreen: false,
    });
    expect(planWake(row({ state: 'parked', nextAt: 5 }), 5, false)).toEqual({ kind: 'attempt', checkScreen: false });
    expect(planWake(row({ state: 'superseded', lastResult: 'held:draft' }), 0, false)).toEqual({
      kind: 'attempt',
      checkScreen: false,
    });
  });

  it('the notice is one line naming the seat, the count and its token', () => {
    const n = wakeNotice('lead@demo', 2, 'w17-a1b2c3');
    expect(n).toBe('[rigdesk] 2 queued item(s) for you: rigdesk queue list --seat lead@demo (wake w17-a1b2c3)');
    expect(n).not.toMatch(/[\x00-\x1f]/);
  });
});

describe('the move table against the store (property)', () => {
  it('any sequence of moves: the item is where its last legal move put it, with one transition per legal move, and done is final', () => {
    const move = fc.record({
      move: fc.constantFrom(...QUEUE_MOVES),
      note: fc.option(fc.constantFrom('why', ' ', 'closing'), { nil: undefined }),
      seat: fc.constantFrom('a@r', 'b@r'),
    });
    fc.assert(
      fc.property(fc.array(move, { maxLength: 25 }), (moves) => {
        const t = 1000;
        const store = Store.open(':memory:', () => t);
        try {
          const repo = store.queue;
          let item = repo.create('a@r', 'body', {});
          let legal = 0;
          let wasDone = false;
          let last = item.updatedAt;
          for (const m of moves) {
            const toSeat = m.move === 'handoff' ? m.seat : undefined;
            const check = checkMove(m.move, item.state, m.note);
            if (!check.ok || (toSeat && toSeat === item.seat)) {
              if (item.state === 'done') expect(check.ok).toBe(false);
              continue;
            }
            expect(wasDone).toBe(false);
            const next = repo.move(item, m.move, check.to, { note: m.note, toSeat })!;
            legal++;
            expect(next.state).toBe(check.to);
            expect(next.updatedAt).toBeGreaterThan(last);
            last = next.updatedAt;
            item = next;
            wasDone = item.state === 'done';
          }
          const moves2 = repo.transitions(item.id);
          expect(moves2).toHaveLength(legal + 1);
          expect(moves2.at(-1)!.to).toBe(item.state as QueueState);
          expect(store.events.list({ kind: 'queue.moved' })).toHaveLength(legal);
        } finally {
          store.close();
        }
      }),
      { numRuns: 300 },
    );
  });
});
