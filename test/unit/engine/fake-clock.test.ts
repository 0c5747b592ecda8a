/**
 * Every timer of the engine is set through its Clock port (deps.ts), so a test's clock drives them:
 * here the background's two intervals, the rig snapshots and the queue waker, run only when the
 * fake clock moves, once a step, and never after they are stopped. Real SQLite store; only time is
 * faked (and, for the waker, a queue that cannot be read, so each of its ticks reports).
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import type { SendPorts } from '../../../src/main/engine/delivery/send';
import { liveProcReader } from '../../../src/main/engine/proc';
import { startQueueWaker } from '../../../src/main/engine/queue/waker';
import { startSnapshotTimer } from '../../../src/main/engine/restore/snapshot';
import type { Roster } from '../../../src/main/engine/roster/types';
import { Store } from '../../../src/main/engine/store';
import { fakeClock } from '../../support/fake-clock';

const EMPTY: Roster = { takenAt: 0, panes: [], agents: [], claims: [], servers: [], problems: [] } as unknown as Roster;

describe('the fake clock drives the engine timers', () => {
  let dir: string;
  let store: Store | undefined;
  afterEach(() => {
    store?.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it('the snapshot timer takes a roster once per interval of clock time, and none after it is stopped', async () => {
    dir = mkdtempSync(join(tmpdir(), 'rd-clock-'));
    const clock = fakeClock();
    store = Store.open(join(dir, 'rigdesk.db'), clock.now);
    let rosters = 0;
    const ports = {
      store,
      clock,
      fs: undefined as never,
      io: undefined as never,
      seatHome: () => undefined,
      roster: async () => (rosters++, EMPTY),
    };
    const stop = startSnapshotTimer(ports, 60_000);
    await clock.advance(59_999);
    expect(rosters).toBe(0);
    await clock.advance(1);
    expect(rosters).toBe(1);
    await clock.advance(120_000);
    expect(rosters).toBe(3);
    stop();
    expect(clock.pending()).toBe(0);
    await clock.advance(600_000);
    expect(rosters).toBe(3);
  });

  it('the queue waker ticks once per interval of clock time (fault: its queue cannot be read, so each tick reports)', async () => {
    dir = mkdtempSync(join(tmpdir(), 'rd-clock-'));
    const clock = fakeClock();
    store = Store.open(join(dir, 'rigdesk.db'), clock.now);
    const broken = new Proxy(store, {
      get: (t, k) =>
        k === 'queue'
          ? {
              ...t.queue,
              list: () => {
                throw new Error('forced: the queue cannot be read');
              },
            }
          : Reflect.get(t, k),
    });
    const ports = { store: broken, clock, selfPid: process.pid, proc: liveProcReader() } as unknown as SendPorts;
    const errors: unknown[] = [];
    const stop = startQueueWaker(ports, 5000, (e) => errors.push(e));
    await clock.advance(4999);
    expect(errors).toHaveLength(0);
    await clock.advance(1);
    expect(errors).toHaveLength(1);
    await clock.advance(10_000);
    expect(errors).toHaveLength(3);
    stop();
    await clock.advance(60_000);
    expect(errors).toHaveLength(3);
  });
});
