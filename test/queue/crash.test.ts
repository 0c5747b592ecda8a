import { spawn } from 'node:child_process';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { readEngineInfo } from '../../src/main/engine/rpc/server';
import { RIGDESK_BIN, type RigWorld } from '../support/rig';
import { waitFor } from '../support/tmux';
import { add, settleNotices, teeWorld, wake } from './helpers';
import { join } from 'node:path';

/** Runs `rigdesk queue wake` paused at a test fault point, then SIGKILLs it there. */
async function killWakeAt(w: RigWorld, point: string): Promise<void> {
  const child = spawn(process.execPath, [RIGDESK_BIN, 'queue', 'wake'], {
    env: { ...w.env, RIGDESK_TEST_FAULT: `${point}:pause` },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let err = '';
  child.stderr.on('data', (d: Buffer) => (err += d.toString()));
  const exited = new Promise((r) => child.once('exit', r));
  await waitFor(() => err.includes(`paused at ${point}`), { what: `wake paused at ${point}`, timeoutMs: 20_000 });
  process.kill(child.pid!, 'SIGKILL');
  await exited;
}

/** Issue 4: "A queue item survives an engine crash between create and wake, and is woken exactly once." */
describe('wakes survive crashes and are typed exactly once', () => {
  let w: RigWorld;
  beforeEach(async () => {
    w = await teeWorld();
  });
  afterEach(() => w.cleanup());

  it('killed after writing the wake row, before typing: the next pass types it, exactly once', async () => {
    const id = await add(w, 'sink@q', 'do not lose me');
    await killWakeAt(w, 'queue.after_wake_row');
    expect(await settleNotices(w, 0)).toEqual([]);
    const again = await wake(w);
    expect(again[0]).toMatchObject({ outcome: 'woken' });
    expect((await wake(w))[0]!.outcome).toBe('already_woken');
    const lines = await settleNotices(w, 1);
    expect(lines).toHaveLength(1);
    expect(lines[0]).toContain(again[0]!.token!);
    expect((await w.cli(['queue', 'show', String(id), '--json'])).json.item).toMatchObject({
      state: 'open',
      body: 'do not lose me',
    });
  });

  it('killed after typing, before marking it sent: the next pass finds its token on screen and types nothing', async () => {
    const id = await add(w, 'sink@q', 'do not say it twice');
    await killWakeAt(w, 'queue.after_wake_typed');
    expect(await settleNotices(w, 1)).toHaveLength(1);
    const again = await wake(w);
    expect(again[0]).toMatchObject({ outcome: 'recovered' });
    expect((await wake(w))[0]!.outcome).toBe('already_woken');
    expect(await settleNotices(w, 1)).toHaveLength(1);
    const ev = (await w.cli(['events', '--seat', 'sink@q', '--json'])).json.events;
    expect(ev.filter((e: { kind: string }) => e.kind === 'seat.send')).toHaveLength(1);
    expect(
      ev
        .filter((e: { kind: string }) => e.kind === 'queue.wake')
        .map((e: { data: { recovered?: boolean } }) => e.data.recovered),
    ).toEqual([true]);
    expect((await w.cli(['queue', 'show', String(id), '--json'])).json.item.state).toBe('open');
  });

  it('an item created through a running engine survives that engine being SIGKILLed, and is woken once after', async () => {
    const serve = spawn(process.execPath, [RIGDESK_BIN, 'serve'], { env: w.env, stdio: ['ignore', 'pipe', 'pipe'] });
    let out = '';
    serve.stdout!.on('data', (d: Buffer) => (out += d.toString()));
    const exited = new Promise((r) => serve.once('exit', r));
    try {
      await waitFor(() => out.includes('serving'), { what: 'serve up' });
      expect(readEngineInfo(join(w.home, 'engine.json'))!.pid).toBe(serve.pid);
      const id = await add(w, 'sink@q', 'created by the served engine');
      serve.kill('SIGKILL');
      await exited;
      // The next CLI runs its own engine over the same store.
      expect((await w.cli(['queue', 'show', String(id), '--json'])).json.item.state).toBe('open');
      expect((await wake(w))[0]!.outcome).toBe('woken');
      expect((await wake(w))[0]!.outcome).toBe('already_woken');
      expect(await settleNotices(w, 1)).toHaveLength(1);
    } finally {
      if (serve.exitCode === null && serve.signalCode === null) serve.kill('SIGKILL');
    }
  });
});
