import { describe, expect, it } from 'vitest';
import type { Clock } from '../../../src/main/engine/deps';
import { TreeWatcher, type WatchPort } from '../../../src/main/engine/changes/watch';

/** A watch port that records subscriptions and lets the test fire events; timers on a fake clock. */
function rig() {
  const subs: { dir: string; fire: (paths: string[], err?: Error) => void; ignore: string[]; closed: boolean }[] = [];
  const port: WatchPort = {
    subscribe: async (dir, on, opts) => {
      const s = { dir, fire: (p: string[], err?: Error) => on(err ?? null, p), ignore: opts.ignore, closed: false };
      subs.push(s);
      return { unsubscribe: async () => void (s.closed = true) };
    },
  };
  let now = 0;
  const pending = new Map<number, { at: number; fn: () => void }>();
  let id = 0;
  const timers: Pick<Clock, 'after' | 'now'> = {
    after: (ms, fn) => {
      const mine = ++id;
      pending.set(mine, { at: now + ms, fn });
      return { cancel: () => void pending.delete(mine) };
    },
    now: () => now,
  };
  const advance = (ms: number) => {
    now += ms;
    for (const [k, t] of [...pending].sort((a, b) => a[1].at - b[1].at))
      if (t.at <= now) {
        pending.delete(k);
        t.fn();
      }
  };
  const settled: string[] = [];
  const w = new TreeWatcher(port, timers, (key, why) => settled.push(`${key}:${why}`), 150, 1000);
  return { w, subs, advance, settled };
}

const T = { key: 'L|/r', top: '/r', gitDir: '/r/.git' };

describe('the tree watcher', () => {
  it('watches a tree once for all its seats, files and git folder, and stops when the last one goes', async () => {
    const { w, subs } = rig();
    await w.add(T);
    await w.add(T);
    expect(subs.map((s) => s.dir)).toEqual(['/r', '/r/.git']);
    expect(subs[0]!.ignore).toContain('.git');
    expect(subs[1]!.ignore).toContain('objects');
    await w.remove(T.key);
    expect(subs.some((s) => s.closed)).toBe(false);
    await w.remove(T.key);
    expect(subs.every((s) => s.closed)).toBe(true);
  });

  it('asks once a burst settles, and at the latest a second after its first write', async () => {
    const { w, subs, advance, settled } = rig();
    await w.add(T);
    subs[0]!.fire(['/r/a.ts']);
    advance(100);
    subs[0]!.fire(['/r/b.ts']);
    advance(100);
    expect(settled).toEqual([]);
    advance(60);
    expect(settled).toEqual(['L|/r:write']);
    // A writer that never pauses: seen within maxWait all the same.
    for (let t = 0; t < 1100; t += 100) {
      subs[0]!.fire(['/r/c.ts']);
      advance(100);
    }
    expect(settled.length).toBe(2);
  });

  it('ignores lock files alone, takes a commit in the git folder, and reports an error at once', async () => {
    const { w, subs, advance, settled } = rig();
    await w.add(T);
    subs[1]!.fire(['/r/.git/index.lock']);
    advance(500);
    expect(settled).toEqual([]);
    subs[1]!.fire(['/r/.git/index', '/r/.git/logs/HEAD']);
    advance(200);
    expect(settled).toEqual(['L|/r:write']);
    subs[0]!.fire([], new Error('gone'));
    expect(settled).toEqual(['L|/r:write', 'L|/r:error']);
  });
});
