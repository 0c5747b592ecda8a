import { describe, expect, it } from 'vitest';
import { inLanes, Slots } from '../../../src/main/engine/seats/lanes';

/** A task that finishes when the test says so, to see what runs at the same moment. */
function gate() {
  let open!: () => void;
  const p = new Promise<void>((r) => (open = r));
  return { p, open };
}

const tick = () => new Promise((r) => setImmediate(r));

describe('inLanes', () => {
  it('runs at most width at once and answers in the items order', async () => {
    const gates = Array.from({ length: 5 }, gate);
    const started: number[] = [];
    const run = inLanes([0, 1, 2, 3, 4], 2, async (n) => {
      started.push(n);
      await gates[n]!.p;
      return n * 10;
    });
    await tick();
    expect(started).toEqual([0, 1]);
    gates[1]!.open();
    await tick();
    expect(started).toEqual([0, 1, 2]);
    for (const g of gates) g.open();
    expect(await run).toEqual([0, 10, 20, 30, 40]);
  });

  it('runs items of one chain one after another, in their order', async () => {
    const gates = Array.from({ length: 4 }, gate);
    const started: string[] = [];
    const items = ['a1', 'b1', 'a2', 'b2'];
    const run = inLanes(
      items,
      4,
      async (s, i) => {
        started.push(s);
        await gates[i]!.p;
        return s;
      },
      (s) => s[0]!,
    );
    await tick();
    expect(started).toEqual(['a1', 'b1']);
    gates[0]!.open();
    await tick();
    expect(started).toEqual(['a1', 'b1', 'a2']);
    for (const g of gates) g.open();
    expect(await run).toEqual(items);
  });

  it('takes no more work after a throw, and throws it once the lanes are done', async () => {
    const seen: number[] = [];
    const run = inLanes([0, 1, 2, 3], 1, async (n) => {
      seen.push(n);
      if (n === 1) throw new Error('boom');
      return n;
    });
    await expect(run).rejects.toThrow('boom');
    expect(seen).toEqual([0, 1]);
  });

  it('handles no items and a width past the item count', async () => {
    expect(await inLanes([], 16, async () => 1)).toEqual([]);
    expect(await inLanes([1, 2], 16, async (n) => n + 1)).toEqual([2, 3]);
  });
});

describe('Slots', () => {
  it('runs at most width at once, the rest in the order they asked, also after a throw', async () => {
    const slots = new Slots(2);
    const gates = Array.from({ length: 4 }, gate);
    const started: number[] = [];
    const runs = [0, 1, 2, 3].map((n) =>
      slots.run(async () => {
        started.push(n);
        await gates[n]!.p;
        if (n === 0) throw new Error('boom');
        return n;
      }),
    );
    await tick();
    expect(started).toEqual([0, 1]);
    gates[0]!.open();
    await expect(runs[0]).rejects.toThrow('boom');
    await tick();
    expect(started).toEqual([0, 1, 2]);
    for (const g of gates) g.open();
    expect(await Promise.all(runs.slice(1))).toEqual([1, 2, 3]);
  });
});
