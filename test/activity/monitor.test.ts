import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { ActivityMonitor, type ActivityChange } from '../../src/main/engine/activity/monitor';
import { RigWorld, shellRigYaml } from '../support/rig';
import { waitFor } from '../support/tmux';

/** The long-lived engine hears of activity from events (pane output, live-state files), not polling. */
describe('the activity monitor', () => {
  let w: RigWorld;
  let m: ActivityMonitor | undefined;
  beforeEach(async () => {
    w = new RigWorld();
    expect((await w.cli(['up', w.spec('rig.yaml', shellRigYaml('demo', ['a', 'b']))])).code).toBe(0);
  });
  afterEach(() => {
    m?.stop();
    w.cleanup();
  });

  it('reports working and idle from pane output, long before its 60 s fallback pass could', async () => {
    const e = w.engine();
    // The fallback is set far out so that only events can explain a timely report.
    m = new ActivityMonitor(e, { fallbackMs: 60_000 });
    const changes: ActivityChange[] = [];
    m.onChange((c) => changes.push(c));
    await m.start();
    await waitFor(() => changes.filter((c) => c.label === 'idle').length >= 2, { what: 'both idle at start' });
    const t0 = Date.now();
    w.tmux.run(['send-keys', '-t', 'a@demo', 'sleep 2', 'Enter']);
    const working = await waitFor(() => changes.find((c) => c.seat === 'a@demo' && c.label === 'working' && c.at >= t0), { timeoutMs: 8000, intervalMs: 10, what: 'working' });
    // Only pane output can explain a report within seconds (latency itself is bench/activity's to measure).
    expect(working.at - t0).toBeLessThan(5000);
    const idle = await waitFor(() => changes.find((c) => c.seat === 'a@demo' && c.label === 'idle' && c.at > working.at), { timeoutMs: 10000, intervalMs: 10, what: 'idle again' });
    expect(idle.at - t0).toBeLessThan(2000 + 5000);
    // The other seat printed nothing: it was never looked at again, and never changed.
    expect(changes.filter((c) => c.seat === 'b@demo')).toHaveLength(1);
    // Every change is an event row first.
    const rows = e.store.events.list({ kind: 'seat.activity', seat: 'a@demo' });
    expect(rows.map((r) => r.data.label)).toEqual(changes.filter((c) => c.seat === 'a@demo').map((c) => c.label));
  });

  it('output printed while a look is under way still wakes the monitor (fault: each roster held for 1 s after it is read)', async () => {
    const e = w.engine();
    const real = e.roster.bind(e);
    e.roster = async (...a: Parameters<typeof real>) => {
      const r = await real(...a);
      await new Promise((res) => setTimeout(res, 1000));
      return r;
    };
    m = new ActivityMonitor(e, { fallbackMs: 60_000 });
    const changes: ActivityChange[] = [];
    m.onChange((c) => changes.push(c));
    await m.start();
    await waitFor(() => changes.filter((c) => c.label === 'idle').length >= 2, { what: 'both idle at start' });
    // The look that sees `sleep` running is still holding its roster when the prompt comes back.
    w.tmux.run(['send-keys', '-t', 'a@demo', 'sleep 0.5', 'Enter']);
    const working = await waitFor(() => changes.find((c) => c.seat === 'a@demo' && c.label === 'working'), { timeoutMs: 5000, intervalMs: 10, what: 'working' });
    await waitFor(() => changes.find((c) => c.seat === 'a@demo' && c.label === 'idle' && c.at > working.at), { timeoutMs: 8000, intervalMs: 10, what: 'idle again' });
  });

  it('a seat whose program exits reads exited, through the pane output it leaves', async () => {
    const e = w.engine();
    m = new ActivityMonitor(e, { fallbackMs: 60_000 });
    const changes: ActivityChange[] = [];
    m.onChange((c) => changes.push(c));
    await m.start();
    await waitFor(() => changes.some((c) => c.seat === 'a@demo'), { what: 'start' });
    w.tmux.run(['send-keys', '-t', 'a@demo', 'exit', 'Enter']);
    await waitFor(() => changes.find((c) => c.seat === 'a@demo' && c.label === 'exited'), { timeoutMs: 5000, what: 'exited' });
  });
});
