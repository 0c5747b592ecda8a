import type { Clock, Timer } from '../../src/main/engine/deps';

/**
 * A clock that moves only when the test says (`advance`): every timer and sleep the engine sets
 * through its Clock port fires then, in time order, with the promises it started settled between
 * firings. Fakes only time; what the timers run is real.
 */
export interface FakeClock extends Clock {
  advance(ms: number): Promise<void>;
  /** Timers set and not yet fired or cancelled. */
  pending(): number;
}

export function fakeClock(start = 1_000_000): FakeClock {
  let now = start;
  let seq = 0;
  const timers = new Map<number, { at: number; every?: number; fn: () => void }>();
  const set = (ms: number, fn: () => void, every?: number): Timer => {
    const id = ++seq;
    timers.set(id, { at: now + ms, every, fn });
    return { cancel: () => void timers.delete(id) };
  };
  const settle = async () => {
    for (let i = 0; i < 20; i++) await Promise.resolve();
  };
  return {
    now: () => now,
    sleep: (ms) => new Promise<void>((r) => set(ms, r)),
    after: (ms, fn) => set(ms, fn),
    every: (ms, fn) => set(ms, fn, ms),
    pending: () => timers.size,
    async advance(ms) {
      const until = now + ms;
      for (;;) {
        const next = [...timers].filter(([, t]) => t.at <= until).sort((a, b) => a[1].at - b[1].at || a[0] - b[0])[0];
        if (!next) break;
        const [id, t] = next;
        now = t.at;
        if (t.every) t.at += t.every;
        else timers.delete(id);
        t.fn();
        await settle();
      }
      now = until;
      await settle();
    },
  };
}
