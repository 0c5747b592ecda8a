import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { RigWorld } from '../support/rig';
import { add, notices, settleNotices, teeWorld, waitForIdle, wake } from './helpers';

/**
 * Wakes type one short notice into an idle seat per occupant and set of unchanged items. The seat
 * is `tee -a out.txt`, so every notice that reached it is one line of out.txt.
 */
describe('queue wakes (real tmux, real CLI processes)', () => {
  let w: RigWorld;
  beforeEach(async () => {
    w = await teeWorld();
  });
  afterEach(() => w.cleanup());

  it('wakes an idle seat exactly once for unchanged items, however many passes run', async () => {
    await add(w, 'sink@q', 'first');
    await add(w, 'sink@q', 'second');
    const first = await wake(w);
    expect(first).toEqual([expect.objectContaining({ seat: 'sink@q', outcome: 'woken' })]);
    for (let i = 0; i < 3; i++) expect((await wake(w))[0]!.outcome).toBe('already_woken');
    const lines = await settleNotices(w, 1);
    expect(lines).toHaveLength(1);
    expect(lines[0]).toBe(
      `[rigdesk] 2 queued item(s) for you: rigdesk queue list --seat sink@q (wake ${first[0]!.token})`,
    );
    const ev = (await w.cli(['events', '--seat', 'sink@q', '--json'])).json.events;
    expect(ev.filter((e: { kind: string }) => e.kind === 'queue.wake')).toHaveLength(1);
    expect(ev.filter((e: { kind: string }) => e.kind === 'seat.send')).toHaveLength(1);
  });

  it('two wake passes at the same instant type one notice', async () => {
    await add(w, 'sink@q', 'only');
    const passes = await Promise.all([wake(w), wake(w), wake(w)]);
    expect(passes.flat().filter((r) => r.outcome === 'woken')).toHaveLength(1);
    expect(await settleNotices(w, 1)).toHaveLength(1);
  });

  it('wakes again when the open items change (one added, one claimed), and never about an empty queue', async () => {
    const a = await add(w, 'sink@q', 'a');
    await wake(w);
    await add(w, 'sink@q', 'b');
    expect((await wake(w))[0]!.outcome).toBe('woken');
    expect(await settleNotices(w, 2)).toHaveLength(2);
    expect(notices(w)[1]).toContain('2 queued item(s)');
    // Claiming one changes the open set: the seat hears about the one still open.
    await w.cli(['queue', 'claim', String(a)]);
    expect((await wake(w))[0]!.outcome).toBe('woken');
    expect((await settleNotices(w, 3))[2]).toContain('1 queued item(s)');
    // Nothing open: no row, no notice.
    const b = (await w.cli(['queue', 'list', '--seat', 'sink@q', '--json'])).json.items.find(
      (i: { state: string }) => i.state === 'open',
    ).id;
    await w.cli(['queue', 'done', String(b), '--note', 'done']);
    expect(await wake(w)).toEqual([]);
    expect(await settleNotices(w, 3)).toHaveLength(3);
  });

  it('a new occupant (relaunch) is woken again for the same items; a stopped seat is not typed into', async () => {
    await add(w, 'sink@q', 'survives relaunch');
    await wake(w);
    expect(await settleNotices(w, 1)).toHaveLength(1);
    expect((await w.cli(['stop', 'sink@q'])).code).toBe(0);
    expect(await wake(w)).toEqual([expect.objectContaining({ seat: 'sink@q', outcome: 'not_running' })]);
    expect((await w.cli(['launch', 'sink@q'])).code).toBe(0);
    await waitForIdle(w, 'sink@q');
    expect((await wake(w))[0]!.outcome).toBe('woken');
    expect((await wake(w))[0]!.outcome).toBe('already_woken');
    expect(await settleNotices(w, 2)).toHaveLength(2);
  });

  it('an item queued for the next resume wakes the seat once it runs again', async () => {
    expect((await w.cli(['stop', 'other@q'])).code).toBe(0);
    await add(w, 'other@q', 'for later', ['--for-next-resume']);
    expect((await wake(w, ['--seat', 'other@q']))[0]!.outcome).toBe('not_running');
    expect((await w.cli(['launch', 'other@q'])).code).toBe(0);
    await waitForIdle(w, 'other@q');
    expect((await wake(w, ['--seat', 'other@q']))[0]!.outcome).toBe('woken');
    expect(await settleNotices(w, 1, 'other.txt')).toHaveLength(1);
    expect(notices(w)).toEqual([]);
  });
});
