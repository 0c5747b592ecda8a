import { afterAll, beforeAll, expect, it } from 'vitest';
import type { PushMessage } from '../../src/shared/contract/app';
import { dispatch } from '../../src/main/engine/api';
import { movesUnseen, PushHub } from '../../src/main/window-hub/pushes';
import { ActivityMonitor } from '../../src/main/engine/activity/monitor';
import { waitFor } from '../support/tmux';
import { appWorld, type AppWorld } from './helpers';

let w: AppWorld;
beforeAll(async () => {
  w = await appWorld('push', ['a', 'b']);
}, 120_000);
afterAll(async () => {
  await w?.cleanup();
});

it('seats are pushed when they change, not at every poll (real engine, real tmux)', async () => {
  const hub = new PushHub(w.engine, { seatsMs: 40, eventsMs: 60_000 });
  const seats: PushMessage[] = [];
  const off = hub.subscribe((m) => void (m.push === 'seats' && seats.push(m)));
  try {
    // Right after `up` the shells are still starting (their rows change); wait until both are idle.
    const rowsOf = (m: PushMessage | undefined) =>
      (m?.data as { seats: { seat: string; state: string; activity: string }[] } | undefined)?.seats ?? [];
    await waitFor(() => rowsOf(seats.at(-1)).length === 2 && rowsOf(seats.at(-1)).every((r) => r.activity === 'idle'), {
      what: 'both seats idle in a push',
    });
    // Then many polls with nothing changed (a seat's shell sitting at its prompt): without activity
    // events every tick runs `ps`, and only the push is saved. Six polls in a row must pass with no
    // push; a shell that still redraws just after its first idle reading restarts the count (under
    // load one did), and a hub that pushed at every poll never gets there.
    let settled = -1;
    let from = 0;
    await waitFor(
      () => {
        if (seats.length !== settled) {
          settled = seats.length;
          from = hub.stats.seatPolls;
        }
        return hub.stats.seatPolls - from > 5;
      },
      { timeoutMs: 30_000, intervalMs: 10, what: 'six polls in a row with no push' },
    );
    // A change is pushed at the next poll.
    expect(await dispatch(w.engine, 'stop', { seat: 'a@push' })).toMatchObject({ ok: true });
    await waitFor(() => rowsOf(seats.at(-1)).find((r) => r.seat === 'a@push')?.state === 'stopped', {
      what: 'a push after the seat stopped',
    });
    expect(seats.length).toBeGreaterThan(settled);
    // A window that subscribes now gets the latest rows at once, though no push is due.
    const late: PushMessage[] = [];
    const offLate = hub.subscribe((m) => void (m.push === 'seats' && late.push(m)));
    expect(late).toHaveLength(1);
    expect(late[0]!.data).toEqual(seats.at(-1)!.data);
    offLate();
  } finally {
    off();
    hub.close();
  }
});

it('with an activity monitor writing events, a quiet rig is not polled every tick, and a seat that starts working is still pushed (real monitor)', async () => {
  const monitor = new ActivityMonitor(w.engine.ports);
  await monitor.start();
  const hub = new PushHub(w.engine, { seatsMs: 40, eventsMs: 40, restSeatsMs: 60_000, activityEvents: true });
  const seats: { seat: string; activity: string }[][] = [];
  const off = hub.subscribe(
    (m) => void (m.push === 'seats' && seats.push((m.data as { seats: { seat: string; activity: string }[] }).seats)),
  );
  try {
    await waitFor(() => seats.length > 0, { what: 'the first seats push' });
    await new Promise((r) => setTimeout(r, 300));
    const polls = hub.stats.seatPolls;
    await new Promise((r) => setTimeout(r, 600));
    expect(hub.stats.seatPolls, 'ps runs in 600 ms of 40 ms ticks on a quiet rig').toBe(polls);
    // The monitor sees b start working and writes an event; the next tick polls and pushes it.
    w.world.tmux.run(['send-keys', '-t', w.engine.store.sessions.live('b@push')!.paneId, 'sleep 3', 'Enter']);
    await waitFor(() => seats.at(-1)?.find((r) => r.seat === 'b@push')?.activity === 'working', {
      what: 'b working in a seats push',
      timeoutMs: 5000,
    });
    expect(hub.stats.seatPolls).toBeGreaterThan(polls);
  } finally {
    off();
    hub.close();
    monitor.stop();
  }
});

it('with activity events, the rest polls thin out while nothing changes, and while a shell seat works (no tokens move then)', async () => {
  // No monitor: no event rows, so every poll here is a rest poll.
  const hub = new PushHub(w.engine, {
    seatsMs: 40,
    eventsMs: 40,
    restSeatsMs: 200,
    restSeatsMaxMs: 800,
    activityEvents: true,
  });
  const seats: { seat: string; activity: string }[][] = [];
  const off = hub.subscribe(
    (m) => void (m.push === 'seats' && seats.push((m.data as { seats: { seat: string; activity: string }[] }).seats)),
  );
  try {
    // (a was stopped by an earlier test.)
    await waitFor(() => seats.at(-1)?.find((r) => r.seat === 'b@push')?.activity === 'idle', {
      what: 'b idle in a push',
    });
    await new Promise((r) => setTimeout(r, 1500)); // 200, 400, 800: at the cap by now
    const p0 = hub.stats.seatPolls;
    await new Promise((r) => setTimeout(r, 3200));
    const quiet = hub.stats.seatPolls - p0;
    // At the base pace 16 polls in 3.2 s; at the cap 4.
    expect(quiet, 'rest polls in 3.2 s of a quiet rig').toBeLessThanOrEqual(6);
    expect(quiet, 'rest polls go on (fewer when a poll is slow on a loaded machine)').toBeGreaterThanOrEqual(1);
    w.world.tmux.run(['send-keys', '-t', w.engine.store.sessions.live('b@push')!.paneId, 'sleep 8', 'Enter']);
    await waitFor(() => seats.at(-1)?.find((r) => r.seat === 'b@push')?.activity === 'working', {
      what: 'b working in a seats push',
      timeoutMs: 5000,
    });
    await new Promise((r) => setTimeout(r, 1500)); // back at the cap after the change was seen
    const p1 = hub.stats.seatPolls;
    await new Promise((r) => setTimeout(r, 2400));
    // A shell has no tokens: at the cap about 3 polls, not the base pace's 12.
    expect(hub.stats.seatPolls - p1, 'polls in 2.4 s while the shell b works').toBeLessThanOrEqual(5);
  } finally {
    off();
    hub.close();
  }
});

it('rest polls keep the base pace for what changes with no event: an agent at work (its tokens) and a starting seat', () => {
  expect(movesUnseen({ activity: 'working', conversations: true })).toBe(true);
  expect(movesUnseen({ activity: 'working' })).toBe(true); // a runtime this Rigdesk does not know
  expect(movesUnseen({ activity: 'starting', conversations: false })).toBe(true);
  expect(movesUnseen({ activity: 'working', conversations: false })).toBe(false);
  expect(movesUnseen({ activity: 'idle', conversations: true })).toBe(false);
  expect(movesUnseen({ activity: 'needs_input', conversations: true })).toBe(false);
});
