import { afterEach, describe, expect, it } from 'vitest';
import { observeSeats } from '../../src/main/engine/activity/observe';
import { type Clock, systemClock } from '../../src/main/engine/deps';
import { queueTick, type ObserveFn, type WakeOutcome, type WakeReport } from '../../src/main/engine/queue/waker';
import { RigWorld, shellRigYaml } from '../support/rig';
import { waitFor } from '../support/tmux';
import { add, notices, settleNotices, teeWorld } from './helpers';

/** A clock the test moves by hand; sleeps stay real but short, so the engine's polling still runs. */
function handClock(start = Date.now()): Clock & { t: number } {
  const c = {
    ...systemClock,
    t: start,
    now: () => c.t,
    sleep: (ms: number) => new Promise<void>((r) => setTimeout(r, Math.min(ms, 20))),
  };
  return c;
}

/** The report, asserted to have outcome `o`, as that outcome's own shape (its token, its nextAt). */
function expectOutcome<O extends WakeOutcome>(r: WakeReport, o: O): Extract<WakeReport, { outcome: O }> {
  if (!hasOutcome(r, o)) throw new Error(`expected a ${o} wake, got ${JSON.stringify(r)}`);
  return r;
}
const hasOutcome = <O extends WakeOutcome>(r: WakeReport, o: O): r is Extract<WakeReport, { outcome: O }> =>
  r.outcome === o;

const activityOf = async (w: RigWorld, seat: string) =>
  (await w.cli(['ps', '--json'])).json.seats.find((s: { seat: string }) => s.seat === seat)?.activity;

describe('held and parked wakes (injected clock)', () => {
  let w: RigWorld;
  afterEach(() => w.cleanup());

  it('a wake held by a busy seat is retried on the ladder 5 s, 15 s, 60 s, 5 min (repeating), then typed once when idle', async () => {
    w = new RigWorld();
    expect((await w.cli(['up', w.spec('rig.yaml', shellRigYaml('b', ['lead']))])).code).toBe(0);
    await waitFor(async () => (await activityOf(w, 'lead@b')) === 'idle', { what: 'bash idle' });
    // Busy: the seat's foreground is a running `sleep`, not its shell.
    w.tmux.run(['send-keys', '-t', 'lead@b', 'sleep 1000', 'Enter']);
    await waitFor(async () => (await activityOf(w, 'lead@b')) === 'working', { what: 'sleep in front' });
    await add(w, 'lead@b', 'when you have a moment');
    const clock = handClock();
    const e = w.engine({ clock });
    const tick = async () => (await queueTick(e.ports))[0]!;

    const gaps: number[] = [];
    for (let attempt = 1; attempt <= 5; attempt++) {
      const r = await tick();
      expect(r, `attempt ${attempt}`).toMatchObject({ outcome: 'held', why: 'held:working', attempt });
      const gap = expectOutcome(r, 'held').nextAt - clock.t;
      gaps.push(gap);
      clock.t += gap - 1;
      expect((await tick()).outcome, `still waiting before attempt ${attempt + 1}`).toBe('not_due');
      clock.t += 1;
    }
    expect(gaps).toEqual([5_000, 15_000, 60_000, 300_000, 300_000]);

    w.tmux.run(['send-keys', '-t', 'lead@b', 'C-c']);
    await waitFor(async () => (await activityOf(w, 'lead@b')) === 'idle', { what: 'sleep interrupted' });
    const woken = expectOutcome(await tick(), 'woken');
    expect(woken).toMatchObject({ attempt: 6 });
    expect((await tick()).outcome).toBe('already_woken');
    await waitFor(() => w.tmux.capture('lead@b').includes(woken.token), { what: 'notice on screen' });
    expect(
      w.tmux
        .capture('lead@b')
        .split('\n')
        .filter((l) => l.includes(woken.token)),
    ).toHaveLength(1);
    const held = e.store.events.list({ seat: 'lead@b', kind: 'queue.wake_held' });
    expect(held.map((h) => h.data.attempt)).toEqual([1, 2, 3, 4, 5]);
    expect(e.store.events.list({ seat: 'lead@b', kind: 'queue.wake' })).toHaveLength(1);
  });

  it("a wake whose own look was stale is still held by the send's holds, types nothing, and keeps its place on the ladder", async () => {
    w = new RigWorld();
    expect((await w.cli(['up', w.spec('rig.yaml', shellRigYaml('b', ['lead']))])).code).toBe(0);
    await waitFor(async () => (await activityOf(w, 'lead@b')) === 'idle', { what: 'bash idle' });
    w.tmux.run(['send-keys', '-t', 'lead@b', 'sleep 1000', 'Enter']);
    await waitFor(async () => (await activityOf(w, 'lead@b')) === 'working', { what: 'sleep in front' });
    await add(w, 'lead@b', 'x');
    const clock = handClock();
    const e = w.engine({ clock });
    // The waker is told the seat is idle; sendToSeat looks again for itself and holds.
    const staleIdle: ObserveFn = async (eng, seats) => {
      const m = await observeSeats(eng, await eng.roster(), seats);
      for (const o of m.values()) o.activity = { ...o.activity, activity: 'idle' };
      return m;
    };
    const r = (await queueTick(e.ports, { observe: staleIdle }))[0]!;
    expect(r).toMatchObject({ outcome: 'held', why: 'held:working', attempt: 1, nextAt: clock.t + 5_000 });
    expect(w.tmux.capture('lead@b')).not.toContain(expectOutcome(r, 'held').token);
    expect(e.store.events.list({ seat: 'lead@b', kind: 'seat.send_held' })).toHaveLength(1);
    clock.t += 5_000;
    expect((await queueTick(e.ports, { observe: staleIdle }))[0]).toMatchObject({ outcome: 'held', attempt: 2 });
  });

  it('a wake parks while the seat is at its usage limit (no typing, one event), and is typed once the limit clears', async () => {
    w = await teeWorld();
    await add(w, 'sink@q', 'after the limit');
    const clock = handClock();
    const e = w.engine({ clock });
    let limited = true;
    // The seat is a real idle `tee`; only its needs_input axis is stood at usage_limit.
    const observe: ObserveFn = async (eng, seats) => {
      const m = await observeSeats(eng, await eng.roster(), seats);
      if (limited) for (const o of m.values()) o.activity = { ...o.activity, needsInput: 'usage_limit' };
      return m;
    };
    const tick = async () => (await queueTick(e.ports, { observe }))[0]!;
    expect(await tick()).toMatchObject({ outcome: 'parked', why: 'needs_input:usage_limit' });
    clock.t += 1_000;
    expect((await tick()).outcome).toBe('not_due');
    for (let i = 0; i < 4; i++) {
      clock.t += 30_000;
      expect((await tick()).outcome).toBe('parked');
    }
    expect(await settleNotices(w, 0)).toEqual([]);
    const parkedEvents = e.store.events.list({ seat: 'sink@q', kind: 'queue.wake_held' });
    expect(parkedEvents).toHaveLength(1);
    expect(parkedEvents[0]!.data).toMatchObject({ parked: true, why: 'needs_input:usage_limit' });

    limited = false;
    clock.t += 30_000;
    const woken = expectOutcome(await tick(), 'woken');
    expect(await settleNotices(w, 1)).toHaveLength(1);
    expect(notices(w)[0]).toContain(woken.token);
    expect(e.store.events.list({ seat: 'sink@q', kind: 'queue.wake' })[0]!.data).toMatchObject({ afterPark: true });
  });
});
