/**
 * A monitor pass that fails runs from a timer, so nothing awaits it: while the monitor runs, the
 * failure is reported (the background prints it); after stop() it is dropped, never an unhandled
 * rejection. Seen in CI: a test closed its engine while a pass's roster was still reading a host,
 * and the roster's write to the closed store surfaced as an unhandled rejection. Real engine, real
 * tmux; the roster's failure is a forced fault.
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { ActivityMonitor } from '../../src/main/engine/activity/monitor';
import type { Engine } from '../../src/main/engine/engine';
import { RigWorld, rosterSwitch, shellRigYaml } from '../support/rig';
import { waitFor } from '../support/tmux';

describe('the activity monitor when a pass fails', () => {
  let w: RigWorld;
  let m: ActivityMonitor | undefined;
  let e: Engine;
  beforeEach(async () => {
    w = new RigWorld();
    expect((await w.cli(['up', w.spec('rig.yaml', shellRigYaml('demo', ['a']))])).code).toBe(0);
    e = w.engine();
  });
  afterEach(() => {
    m?.stop();
    w.cleanup();
  });

  it('forced fault (the roster throws): a failing pass while running is reported, and the monitor goes on', async () => {
    const errors: Error[] = [];
    const { ports, real, set } = rosterSwitch(e);
    m = new ActivityMonitor(ports, { fallbackMs: 100, onError: (err) => errors.push(err) });
    await m.start();
    let failing = true;
    set(async () => {
      if (failing) throw new Error('forced: the roster could not be read');
      return real();
    });
    await waitFor(() => errors.length > 0, { what: 'the failure reported' });
    expect(errors[0]!.message).toBe('forced: the roster could not be read');
    failing = false;
    const seen = errors.length;
    // Passes go on after a failure: the next roster is read again.
    let reads = 0;
    set(async () => {
      reads++;
      return real();
    });
    await waitFor(() => reads >= 2, { what: 'passes after the failure' });
    expect(errors.length).toBe(seen);
  });

  it('forced fault (the roster fails after stop): nothing is reported and nothing is left unhandled', async () => {
    const errors: Error[] = [];
    const { ports, set } = rosterSwitch(e);
    m = new ActivityMonitor(ports, { fallbackMs: 100, onError: (err) => errors.push(err) });
    await m.start();
    let fail: (err: Error) => void = () => undefined;
    let asked = false;
    set(
      () =>
        new Promise((_resolve, reject) => {
          asked = true;
          fail = reject;
        }),
    );
    await waitFor(() => asked, { what: 'a pass under way' });
    m.stop();
    fail(new Error('forced: the store was closed under the roster'));
    // Long enough for a rejection to surface: vitest fails the run on an unhandled one.
    await new Promise((r) => setTimeout(r, 300));
    expect(errors).toEqual([]);
  });
});
