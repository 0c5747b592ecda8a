import { expect, it } from 'vitest';
import { RestCadence } from '../../src/main/engine/activity/cadence';

it('each quiet look doubles the wait up to its cap; news brings it back to the base and says it was resting', () => {
  const c = new RestCadence(5000, 15_000);
  expect(c.waitMs).toBe(5000);
  expect(c.news(), 'already at the base pace').toBe(false);
  const waits = [1, 2, 3, 4].map(() => (c.quiet(), c.waitMs));
  expect(waits).toEqual([10_000, 15_000, 15_000, 15_000]);
  expect(c.news()).toBe(true);
  expect(c.waitMs).toBe(5000);
});

it('defaults its cap to three times the base, and never waits less than the base', () => {
  const c = new RestCadence(1000);
  for (let i = 0; i < 5; i++) c.quiet();
  expect(c.waitMs).toBe(3000);
  const tight = new RestCadence(1000, 500);
  tight.quiet();
  expect(tight.waitMs).toBe(1000);
});

it('news that comes while a look runs outlives that look: it ends at the base pace even if it saw nothing', () => {
  const c = new RestCadence(100, 400);
  c.quiet();
  c.quiet();
  const mark = c.mark;
  c.news(); // output while the look was under way
  c.quiet();
  c.looked(false, mark);
  expect(c.waitMs).toBe(100);
  c.looked(false, c.mark);
  expect(c.waitMs).toBe(200);
});
