import { describe, expect, it } from 'vitest';
import type { Roster } from '../../../src/main/engine/roster/types';
import { RestoreReads } from '../../../src/main/engine/restore/reads';

const tick = () => new Promise((r) => setImmediate(r));

/**
 * A roster port whose reads are numbered in the order they begin, callers in one turn sharing one
 * (as Engine.sharedRoster), and a clock the test moves.
 */
function world(opts = { maxAgeMs: 150, drainMs: 5_000 }) {
  let now = 1000;
  const log: string[] = [];
  let n = 0;
  let pending: Promise<Roster> | undefined;
  const ports = {
    clock: { now: () => now, sleep: async () => undefined },
    roster: () =>
      (pending ??= tick().then(() => {
        pending = undefined;
        n += 1;
        log.push(`read ${n}`);
        return { takenAt: n } as Roster;
      })),
  };
  const reads = new RestoreReads(ports as never, opts);
  return { reads, log, advance: (ms: number) => (now += ms), count: () => n };
}

describe("a restore's shared reads", () => {
  it('a launch asking while another is between its read and its end reads only after that one ends', async () => {
    const { reads, log } = world();
    const a = reads.launch();
    expect((await a.roster()).takenAt).toBe(1);
    const b = reads.launch();
    let got: Roster | undefined;
    void b.roster().then((r) => (got = r));
    await tick();
    expect(got).toBeUndefined();
    log.push('a ended');
    a.done();
    await tick();
    await tick();
    expect(got?.takenAt).toBe(2);
    expect(log).toEqual(['read 1', 'a ended', 'read 2']);
  });

  it('launches waiting together read together once the launches ahead end, and a proof waiting joins them', async () => {
    const { reads, log, advance } = world();
    const a = reads.launch();
    await a.roster();
    advance(200);
    const waiting = [reads.launch(), reads.launch()];
    const got = Promise.all([...waiting.map((w) => w.roster()), reads.forProof(0)]);
    await tick();
    expect(log).toEqual(['read 1']);
    a.done();
    expect((await got).map((r) => r.takenAt)).toEqual([2, 2, 2]);
    expect(log).toEqual(['read 1', 'read 2']);
  });

  it('a launch that read nothing holds no one back, and a launch that ended before its read counts for none', async () => {
    const { reads } = world();
    const fresh = reads.launch();
    const other = reads.launch();
    expect((await other.roster()).takenAt).toBe(1);
    other.done();
    expect((await reads.launch().roster()).takenAt).toBe(2);
    fresh.done();
  });

  it('the wait for the launches ahead is bounded: after drainMs it reads anyway', async () => {
    const { reads } = world({ maxAgeMs: 150, drainMs: 20 });
    await reads.launch().roster();
    const t0 = Date.now();
    expect((await reads.launch().roster()).takenAt).toBe(2);
    expect(Date.now() - t0).toBeGreaterThanOrEqual(15);
  });

  it('a proof is given the last read only when it began after the proof asked from and is young enough', async () => {
    const { reads, advance, count } = world();
    const a = reads.launch();
    await a.roster();
    a.done();
    expect((await reads.forProof(1000)).takenAt).toBe(1);
    expect((await reads.forProof(1001)).takenAt).toBe(2);
    advance(151);
    expect((await reads.forProof(0)).takenAt).toBe(3);
    expect(count()).toBe(3);
  });
});

describe("a restore's shared reads, joining", () => {
  it('launches asking in one turn share the read asked for in it, with no wait for one another', async () => {
    const { reads, log } = world();
    const got = await Promise.all([reads.launch(), reads.launch(), reads.launch()].map((l) => l.roster()));
    expect(got.map((r) => r.takenAt)).toEqual([1, 1, 1]);
    expect(log).toEqual(['read 1']);
  });

  it('a launch that ends makes the next one ask anew, even in the same turn', async () => {
    const { reads, log } = world();
    const a = reads.launch();
    const b = reads.launch();
    const first = b.roster();
    a.done();
    const c = reads.launch().roster();
    // b counts as reading: c waits for b to end, then reads after it.
    await tick();
    await tick();
    b.done();
    expect([(await first).takenAt, (await c).takenAt]).toEqual([1, 2]);
    expect(log).toEqual(['read 1', 'read 2']);
  });
});

describe("a restore's shared reads, proofs", () => {
  it('a proof asking while a launch is creating reads only once it ends, with the launches then waiting', async () => {
    const { reads, log, advance } = world();
    const a = reads.launch();
    await a.roster();
    advance(200);
    let got: Roster | undefined;
    void reads.forProof(1100).then((r) => (got = r));
    await tick();
    await tick();
    expect(got).toBeUndefined();
    const b = reads.launch().roster();
    log.push('a ended');
    a.done();
    expect([(await b).takenAt, (await reads.forProof(1100)).takenAt]).toEqual([2, 2]);
    expect(got?.takenAt).toBe(2);
    expect(log).toEqual(['read 1', 'a ended', 'read 2']);
  });
});
