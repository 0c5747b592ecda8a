import { beforeEach, describe, expect, it } from 'vitest';
import { dispatch } from '../../src/main/engine/api';
import { BACKOFF_MIN_MS } from '../../src/main/engine/hosts/transport';
import { type Clock, systemClock } from '../../src/main/engine/deps';
import type { RigWorld } from '../support/rig';
import { sshdMissing, sshWorldPerTest, type TestSshd } from '../support/sshd';

describe.skipIf(!!sshdMissing())(
  'a long-lived engine reconnecting to a host (real sshd killed and restarted by pid)',
  () => {
    let w: RigWorld;
    let sshd: TestSshd;
    const world = sshWorldPerTest();
    beforeEach(() => ({ w, sshd } = world));

    it('backs off after a failure without contacting the host, then reconciles the same sessions from its tmux', async () => {
      // The engine's clock is real time, except that the test can stop it (so a slow sshd restart on a
      // loaded machine cannot carry the engine out of its back-off window) and step it forward.
      let frozenAt: number | undefined;
      let skew = 0;
      const clock: Clock = {
        ...systemClock,
        now: () => frozenAt ?? Date.now() + skew,
        sleep: (ms) => new Promise((r) => setTimeout(r, ms)),
      };
      const engine = w.engine({ clock });
      const spec = w.spec(
        'rig.yaml',
        sshd.rigYaml('mix', [
          `{ id: r1, runtime: shell, cwd: ${sshd.remoteDir}, command: bash, args: ["--noprofile", "--norc"], host: box }`,
        ]),
      );
      expect((await dispatch(engine, 'up', { spec })).ok).toBe(true);
      // This test's own tmux server on the host: the remote user is shared with host tests running in
      // parallel, and the roster also lists their servers when an agent process there names one.
      const own = `H:box|L:${sshd.tmuxSocket}`;
      const before = (await engine.roster()).panes
        .filter((p) => p.server === own)
        .map((p) => [p.serverPid, p.sessionId, p.paneId]);
      expect(before).toHaveLength(1);

      await sshd.kill();
      frozenAt = Date.now();
      const host = engine.hosts.get('box')!;
      const down = await engine.roster();
      expect(down.hosts).toEqual([expect.objectContaining({ host: 'box', state: 'unreachable', failures: 1 })]);
      const trips = host.exec.roundTrips;

      await sshd.restart();
      // Inside the back-off window: still unreachable, and the host was not contacted at all.
      const held = await engine.roster();
      expect(held.hosts![0]!.state).toBe('unreachable');
      expect(host.exec.roundTrips).toBe(trips);
      const launch = await dispatch(engine, 'launch', { seat: 'r1@mix' });
      expect(launch.ok === false && launch.code).toBe('HOST_UNREACHABLE');
      // No cleanup on missing evidence: a stop in the window is refused, the row stays, nothing is sent.
      const stop = await dispatch(engine, 'stop', { seat: 'r1@mix' });
      expect(stop.ok === false && stop.code).toBe('NOT_REMOVED');
      expect(host.exec.roundTrips).toBe(trips);

      frozenAt = undefined;
      skew = BACKOFF_MIN_MS + 1;
      const healed = await engine.roster();
      expect(healed.hosts![0]!.state).toBe('reachable');
      expect(healed.panes.filter((p) => p.server === own).map((p) => [p.serverPid, p.sessionId, p.paneId])).toEqual(
        before,
      );
      expect(engine.store.sessions.allLive().map((r) => r.seat)).toEqual(['r1@mix']);
      expect(engine.store.events.list({ kind: 'host.unreachable' })).toHaveLength(1);
    });
  },
);
