/**
 * The held client is not replaced for a slow moment: every new control client identifies itself
 * to tmux, and tmux 3.3a segfaults when a notice (a session made or gone, a client detached) meets
 * a client half way through that (the server and every seat on it gone). Real tmux on a private -L
 * server.
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { dispatch } from '../../src/main/engine/api';
import type { Engine } from '../../src/main/engine/engine';
import { RigWorld, shellRigYaml } from '../support/rig';

describe('held tmux client: kept through slow moments', () => {
  let w: RigWorld;
  let e: Engine;
  beforeEach(async () => {
    w = new RigWorld();
    w.tmux.newSession('one', ['sleep', '600']);
    e = w.engine();
    expect((await e.own.run(['display-message', '-p', 'hello'])).stdout).toBe('hello\n');
  });
  afterEach(() => w.cleanup());

  const spawns = () => e.deps.tmux.get(e.ownKey)!.spawns;

  it('an answer that waited in the pipe while the engine loop stood still is read, not timed out', async () => {
    const before = spawns();
    const asked = e.own.run(['display-message', '-p', 'late']);
    // The loop stands still longer than the command's whole timeout (5 s): tmux answers meanwhile.
    const until = Date.now() + 5_600;
    while (Date.now() < until) {
      /* a long synchronous task */
    }
    const r = await asked;
    expect(r.timedOut, r.stderr).toBe(false);
    expect(r.stdout).toBe('late\n');
    expect(spawns(), 'no new client').toBe(before);
  }, 20_000);

  it("a probe that misses its short wait (the server held still, a forced fault) keeps the client, and the probe's late answer is not taken for the next command's", async () => {
    const before = spawns();
    const server = e.deps.tmux.get(e.ownKey)!.serverPid!;
    process.kill(server, 'SIGSTOP');
    try {
      expect(await e.own.heldAnswers(100), 'the probe missed').toBe(false);
    } finally {
      process.kill(server, 'SIGCONT');
    }
    const next = await e.own.run(['display-message', '-p', 'next']);
    expect(next.stdout).toBe('next\n');
    expect(await e.own.heldAnswers(1_000)).toBe(true);
    expect(spawns(), 'no new client').toBe(before);
  }, 20_000);

  it('a client dropped after a timeout is replaced only once it has exited (its detach notice never meets the new client identifying itself)', async () => {
    const c = e.deps.tmux.get(e.ownKey)!;
    const server = c.serverPid!;
    const before = spawns();
    // A forced fault: the server held still, so the command times out and the client is dropped;
    // the dropped client, told to end, waits for the server to let it go.
    process.kill(server, 'SIGSTOP');
    let next: Promise<{ stdout: string }> | undefined;
    try {
      const lost = await c.run(['display-message', '-p', 'lost'], { timeoutMs: 300 });
      expect(lost.timedOut).toBe(true);
      next = c.run(['display-message', '-p', 'next'], { timeoutMs: 5_000 });
      await new Promise((r) => setTimeout(r, 600));
      expect(spawns(), 'no new client while the dropped one has not exited').toBe(before);
    } finally {
      process.kill(server, 'SIGCONT');
    }
    expect((await next!).stdout).toBe('next\n');
    expect(spawns(), 'one new client, after').toBe(before + 1);
  }, 20_000);

  it('stopping the seat whose session the held client is on moves the client first: no new client, the seat stopped', async () => {
    const up = await dispatch(e, 'up', { spec: w.spec('r.yaml', shellRigYaml('r', ['a', 'b', 'c'])) });
    expect(up.ok, JSON.stringify(up)).toBe(true);
    const on = async () => (await e.own.run(['display-message', '-p', '#{session_id}'])).stdout.trim();
    const seat = ['a@r', 'b@r', 'c@r'].find((s) => e.store.sessions.live(s)?.sessionId !== undefined)!;
    // Put the held client on that seat's session, as a create leaves it.
    const target = e.store.sessions.live(seat)!.sessionId;
    expect((await e.own.run(['switch-client', '-t', target])).code).toBe(0);
    expect(await on()).toBe(target);
    const before = spawns();
    const stopped = await dispatch(e, 'stop', { seat });
    expect(stopped, JSON.stringify(stopped)).toMatchObject({ ok: true });
    expect(w.tmux.run(['list-sessions', '-F', '#{session_id}']).split('\n')).not.toContain(target);
    expect(await on(), 'the client moved to a session that is still there').not.toBe(target);
    expect(spawns(), 'no new client').toBe(before);
  }, 30_000);
});
