import { join } from 'node:path';
import { beforeEach, describe, expect, it } from 'vitest';
import type { RigWorld } from '../support/rig';
import { installRemoteClaudeStandIn } from '../support/remote-claude';
import { sshdMissing, sshWorldPerTest, type TestSshd } from '../support/sshd';

/**
 * Live-state evidence of an agent on another host (real sshd, a STAND-IN claude on the host):
 * Claude's `sessions/<pid>.json` names the conversation a process writes now (after /clear its
 * argv still names the old one). The roster reads those files on the host for all seats in a
 * fixed number of round trips over the shared connection, never one blocking ssh per file.
 */
describe.skipIf(!!sshdMissing())('live-state files of agents on another host (real sshd, stand-in claude)', () => {
  let w: RigWorld;
  let sshd: TestSshd;
  const world = sshWorldPerTest();
  beforeEach(() => ({ w, sshd } = world));

  it('the conversation a remote live-state file names wins over the argv, read in a fixed number of round trips however many files', async () => {
    const { bin, configDir } = installRemoteClaudeStandIn(sshd);
    const spec = w.spec(
      'rig.yaml',
      sshd.rigYaml('live', [
        `{ id: c, runtime: claude-code, cwd: ${sshd.remoteDir}, command: ${bin}, host: box, env: { CLAUDE_CONFIG_DIR: ${configDir} } }`,
      ]),
    );
    const up = await w.cli(['up', spec, '--json']);
    expect(up.code, up.stdout + up.stderr).toBe(0);
    const X = up.json.seats[0].launched.conversationId as string;
    const row = (await w.cli(['ps', '--json'])).json.seats[0];
    expect(row).toMatchObject({ host: 'box', conversationId: X });

    // As after /clear: the live process now writes Y; its argv still says X. Five stale files of
    // processes long gone sit beside it, as they do in a real config home.
    const Y = '0d3c7a52-9f1e-4b8a-8c3d-2e5f6a7b8c9d';
    const sessions = join(configDir, 'sessions');
    sshd.writeHost(join(sessions, `${row.pid}.json`), JSON.stringify({ pid: row.pid, sessionId: Y, status: 'idle' }));
    for (let i = 0; i < 5; i++)
      sshd.writeHost(
        join(sessions, `${999_000 + i}.json`),
        JSON.stringify({ pid: 999_000 + i, sessionId: `0d3c7a52-9f1e-4b8a-8c3d-2e5f6a7b8c0${i}` }),
      );

    const e = w.engine();
    try {
      const host = e.hosts.get('box')!;
      const before = host.exec.roundTrips;
      const roster = await e.roster();
      const trips = host.exec.roundTrips - before;
      const claims = roster.claims.filter((c) => c.runtime === 'claude-code' && c.pid === row.pid);
      expect(claims.map((c) => [c.source, c.conversationId])).toEqual([['live_state', Y]]);
      expect(roster.problems.filter((p) => p.host === 'box')).toEqual([]);
      // The scan, then one round to list sessions/ and one to read every file in it: the six reads
      // go over the shared connection together, none of them a blocking ssh of its own.
      expect(trips, 'round trips for one roster of the host').toBe(3);
    } finally {
      e.store.close();
    }
    expect((await w.cli(['ps', '--json'])).json.seats[0]).toMatchObject({ host: 'box', conversationId: Y });
  });
});
