/**
 * The held control-mode client and a session being created. tmux 3.3a crashes (a segfault in its
 * session-created notice, seen in the kernel log) when a control client is still identifying
 * itself at the moment a session is created: the `new-session` that started the server then
 * fails with "server exited unexpectedly". A restore after a reboot met it: one seat's launch
 * started the server one-shot while the next seat's commands asked the held client to connect.
 * So the held client never starts while a session-creating one-shot of its own is in flight.
 * Real tmux on a private -L server.
 */
import { tmpdir } from 'node:os';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { type Exec, liveExec } from '../../src/main/engine/deps';
import { TmuxLinks } from '../../src/main/engine/tmux/held';
import { RigWorld } from '../support/rig';

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

const session = (name: string) => ({
  name,
  cwd: tmpdir(),
  env: {},
  argv: ['sleep', '600'],
  seat: `${name}@race`,
  attempt: '1',
});

describe('held tmux client: sessions created one-shot', () => {
  let w: RigWorld;
  beforeEach(() => {
    w = new RigWorld();
  });
  afterEach(() => w.cleanup());

  it('forced fault (a slow machine: the new-session that starts the server returns 300 ms late): no client starts until it has', async () => {
    const links = new TmuxLinks('held');
    const overlaps: string[] = [];
    const slowCreate: Exec = async (file, args, opts) => {
      // The one-shot that creates: `start-server ; source-file -`, the new-session on its stdin.
      if (!args.includes('start-server')) return liveExec(file, args, opts);
      const before = links.spawns;
      const r = await liveExec(file, args, opts);
      await sleep(300);
      if (links.spawns !== before) overlaps.push(`${links.spawns - before} client(s) started during a new-session`);
      return r;
    };
    const e = w.engine({ exec: slowCreate, tmux: links });
    const made = e.own.newSession(session('first'));
    // Commands that arrive while the creation is in flight (the server already up) wait for it.
    const during = Array.from({ length: 3 }, async (_, k) => {
      await sleep(60 + k * 60);
      return e.own.run(['display-message', '-p', `during-${k}`]);
    });
    const first = await made;
    expect(first.ok, JSON.stringify(first)).toBe(true);
    for (const [k, r] of (await Promise.all(during)).entries())
      expect(r).toMatchObject({ code: 0, stdout: `during-${k}\n` });
    expect(overlaps).toEqual([]);
    // Then the client is held, and the next seat's session goes through it, with no new-session spawn.
    expect(e.deps.tmux.get(e.ownKey)?.connected).toBe(true);
    const second = await e.own.newSession(session('second'));
    expect(second.ok, JSON.stringify(second)).toBe(true);
    expect(links.spawns).toBe(1);
    expect(
      w
        .sessions()
        .map((s) => s.name)
        .sort(),
    ).toEqual(['first', 'second']);
  });

  it('after a reboot, seats launched together with commands racing them all start on one server', async () => {
    const e = w.engine();
    const failures: string[] = [];
    for (let round = 0; round < 20; round++) {
      w.tmux.kill();
      const seats = Array.from({ length: 3 }, (_, k) => e.own.newSession(session(`r${round}-${k}`)));
      const others = Array.from({ length: 4 }, async (_, k) => {
        await sleep(k * 5);
        return e.own.listPanes();
      });
      for (const made of await Promise.all(seats)) if (!made.ok) failures.push(`round ${round}: ${made.message}`);
      await Promise.all(others);
      expect(w.sessions()).toHaveLength(3);
    }
    expect(failures).toEqual([]);
  }, 120_000);
});
