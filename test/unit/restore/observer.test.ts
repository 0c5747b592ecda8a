import { describe, expect, it } from 'vitest';
import type { Roster } from '../../../src/main/engine/roster/types';
import type { VerifyPorts } from '../../../src/main/engine/restore/ports';
import { type Observation, sharedObserver } from '../../../src/main/engine/restore/verify';

/** A roster stand-in: the observer reads only its identity and when it was taken. */
const roster = (takenAt: number) => ({ takenAt }) as Roster;

/** An observer over a counted look and a clock the test moves. */
function world(maxAgeMs = 150) {
  let now = 1000;
  const looks: { seats: string[]; takenAt: number }[] = [];
  const ports = { clock: { now: () => now, sleep: async () => undefined } } as unknown as VerifyPorts;
  const obs = sharedObserver(ports, maxAgeMs, async (r, seats) => {
    looks.push({ seats: [...seats].sort(), takenAt: r.takenAt });
    return new Map<string, Observation>(seats.map((s) => [s, { screen: `${s}@${r.takenAt}` }]));
  });
  return { obs, looks, advance: (ms: number) => (now += ms) };
}

describe("a restore's shared observer", () => {
  it('seats asking in the same turn share one look', async () => {
    const { obs, looks } = world();
    const r = roster(1000);
    for (const s of ['a', 'b', 'c']) obs.watch(s);
    const got = await Promise.all(['a', 'b', 'c'].map((s) => obs.observe(s, r)));
    expect(looks).toEqual([{ seats: ['a', 'b', 'c'], takenAt: 1000 }]);
    expect(got.map((o) => o.screen)).toEqual(['a@1000', 'b@1000', 'c@1000']);
  });

  it('a seat that starts being watched is looked at alone, not with every seat already watched', async () => {
    const { obs, looks } = world();
    const r = roster(1000);
    for (const s of ['a', 'b', 'c']) obs.watch(s);
    await Promise.all(['a', 'b', 'c'].map((s) => obs.observe(s, r)));
    obs.watch('d');
    expect((await obs.observe('d', r)).screen).toBe('d@1000');
    // The others, asking again on the same roster within the age, keep their look.
    expect((await obs.observe('a', r)).screen).toBe('a@1000');
    expect(looks.map((l) => l.seats)).toEqual([['a', 'b', 'c'], ['d']]);
  });

  it('a newer roster, or a look older than the age, is looked at again; an unwatched seat keeps nothing', async () => {
    const { obs, looks, advance } = world(150);
    obs.watch('a');
    await obs.observe('a', roster(1000));
    await obs.observe('a', roster(1000));
    expect(looks).toHaveLength(1);
    await obs.observe('a', roster(1100));
    expect(looks.at(-1)).toEqual({ seats: ['a'], takenAt: 1100 });
    const r = roster(1100);
    await obs.observe('a', r);
    advance(151);
    await obs.observe('a', r);
    expect(looks).toHaveLength(3);
    const unwatch = obs.watch('b');
    await obs.observe('b', r);
    unwatch();
    await obs.observe('b', r);
    expect(looks.filter((l) => l.seats.includes('b'))).toHaveLength(2);
  });

  it('seats joining one look with different rosters are looked at on the newest', async () => {
    const { obs, looks } = world();
    obs.watch('a');
    obs.watch('b');
    await Promise.all([obs.observe('a', roster(1000)), obs.observe('b', roster(1050))]);
    expect(looks).toEqual([{ seats: ['a', 'b'], takenAt: 1050 }]);
  });
});
