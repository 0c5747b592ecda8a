import { existsSync } from 'node:fs';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { claimEngine, WAKE_EVERY_MS, type BackgroundReport } from '../../src/main/engine/background';
import { readEngineInfo } from '../../src/main/engine/rpc/server';
import type { RigWorld } from '../support/rig';
import { add, notices, settleNotices, teeWorld } from '../queue/helpers';

/**
 * The app's main process claims its home's engine the way `rigdesk serve` does, and then runs
 * what serve runs besides requests. (Electron itself cannot start here; this is the engine half
 * of src/main/index.ts, on a real engine, real tmux and real CLI processes.)
 */
describe("the app's engine (real engine, real tmux)", () => {
  let w: RigWorld;
  beforeEach(async () => {
    w = await teeWorld();
  });
  afterEach(() => w.cleanup());

  const activityEvents = (engine: ReturnType<RigWorld['engine']>) =>
    engine.store.events.list({ afterSeq: 0, limit: 100_000 }).filter((e) => e.kind === 'seat.activity');

  it('claims the socket and runs reconcile, the queue waker and the activity monitor; closing stops them and frees the socket', async () => {
    const engine = w.engine();
    // A session that vanished while no engine ran: reconcile at start settles it.
    const other = engine.store.sessions.live('other@q')!;
    w.tmux.run(['kill-session', '-t', other.sessionId]);
    await add(w, 'sink@q', 'for the app');
    expect(activityEvents(engine)).toHaveLength(0);

    const reports: BackgroundReport[] = [];
    const claimed = await claimEngine(engine, (r) => reports.push(r));
    try {
      expect(claimed.background).toBeDefined();
      expect(readEngineInfo(engine.deps.layout.engineInfoPath)?.pid).toBe(process.pid);
      expect(engine.store.sessions.live('other@q')).toBeUndefined();
      // The monitor's first pass records every seat's activity as an event row.
      expect(activityEvents(engine).map((e) => e.seat)).toContain('sink@q');
      // The waker tells the idle seat about its open item within one period.
      expect(await settleNotices(w, 1)).toHaveLength(1);
    } finally {
      await claimed.close();
    }
    expect(reports).toEqual([]);
    expect(existsSync(engine.deps.layout.engineInfoPath)).toBe(false);
    // Stopped: a new item is not announced by this engine any more.
    await add(w, 'sink@q', 'after close');
    await new Promise((r) => setTimeout(r, WAKE_EVERY_MS + 1500));
    expect(notices(w)).toHaveLength(1);
  }, 60_000);

  it('forced fault: a background that cannot start gives the socket back instead of serving an engine that watches nothing', async () => {
    const engine = w.engine(
      {},
      {
        roster: async () => {
          throw new Error('forced: the roster cannot be read');
        },
      },
    );
    await expect(claimEngine(engine, () => undefined)).rejects.toThrow('forced');
    expect(existsSync(engine.deps.layout.engineInfoPath)).toBe(false);
    expect(existsSync(engine.deps.layout.socketPath)).toBe(false);
  });

  it('forced fault: when another engine serves the home, the app runs no background and says so', async () => {
    const engine = w.engine();
    await add(w, 'sink@q', 'for the other engine');
    const reports: BackgroundReport[] = [];
    const claimed = await claimEngine(
      engine,
      (r) => reports.push(r),
      async () => {
        throw Object.assign(new Error('another Rigdesk engine (pid 1) already serves it'), { code: 'ENGINE_RUNNING' });
      },
    );
    expect(claimed.background).toBeUndefined();
    expect(reports).toEqual([
      expect.objectContaining({ kind: 'engine_elsewhere', message: expect.stringContaining('another Rigdesk engine') }),
    ]);
    await new Promise((r) => setTimeout(r, WAKE_EVERY_MS + 1500));
    expect(activityEvents(engine)).toHaveLength(0);
    expect(notices(w)).toHaveLength(0);
    await claimed.close();
  }, 60_000);
});
