import { beforeEach, describe, expect, it } from 'vitest';
import type { RigWorld } from '../support/rig';
import { sshdMissing, sshWorldPerTest, type TestSshd } from '../support/sshd';

describe.skipIf(!!sshdMissing())('a host that stops answering (real sshd killed by pid mid-run)', () => {
  let w: RigWorld;
  let sshd: TestSshd;
  const world = sshWorldPerTest();
  beforeEach(() => ({ w, sshd } = world));

  it('turns its seats unknown/host_unreachable within 5 s, refuses their launches, keeps every row, and reconciles without a duplicate when it is back', async () => {
    const shell = (id: string, host?: string) =>
      `      - { id: ${id}, runtime: shell, cwd: ${host ? sshd.remoteDir : '.'}, command: bash, args: ["--noprofile", "--norc"]${host ? `, host: ${host}` : ''} }`;
    const spec = w.spec(
      'rig.yaml',
      `${[
        'name: mix',
        'hosts:',
        sshd.hostYaml('box'),
        'pods:',
        '  - id: team',
        '    members:',
        shell('here'),
        shell('r1', 'box'),
        shell('r2', 'box'),
      ].join('\n')}\n`,
    );
    expect((await w.cli(['up', spec])).code).toBe(0);
    const before = (await w.cli(['ps', '--json'])).json.seats as { seat: string; sessionId: string; state: string }[];
    expect(before.map((r) => r.state)).toEqual(['running', 'running', 'running']);

    await sshd.kill();
    const t0 = Date.now();
    const ps = await w.cli(['ps', '--json']);
    const took = Date.now() - t0;
    expect(ps.code, ps.stdout + ps.stderr).toBe(0);
    expect(took).toBeLessThan(5_000);
    const by = Object.fromEntries((ps.json.seats as { seat: string }[]).map((r) => [r.seat, r]));
    expect(by['here@mix']).toMatchObject({ state: 'running' });
    for (const s of ['r1@mix', 'r2@mix'])
      expect(by[s]).toMatchObject({ state: 'unknown', reason: 'host_unreachable', host: 'box' });
    expect((await w.cli(['ps'])).stdout).toMatch(/r1@mix\s+box\s+shell\s+unknown\/host_unreachable/);

    // Fail closed: a launch of a remote seat is refused with a code that says why, and nothing is ended.
    const stop = await w.cli(['stop', 'r2@mix', '--json']);
    expect(stop.code).toBe(1);
    expect(stop.json.code).toBe('NOT_REMOVED');
    const relaunch = await w.cli(['launch', 'r1@mix', '--json']);
    expect(relaunch.code).toBe(1);
    expect(relaunch.json.code).toBe('HOST_UNREACHABLE');
    const e = w.engine();
    expect(
      e.store.sessions
        .allLive()
        .map((r) => r.seat)
        .sort(),
    ).toEqual(['here@mix', 'r1@mix', 'r2@mix']);
    e.store.close();

    await sshd.restart();
    const healed = (await w.cli(['ps', '--json'])).json.seats as { seat: string; sessionId: string; state: string }[];
    expect(healed.map((r) => [r.seat, r.state, r.sessionId])).toEqual(
      before.map((r) => [r.seat, r.state, r.sessionId]),
    );
    const up = await w.cli(['up', spec, '--json']);
    expect(up.code, up.stdout).toBe(0);
    expect(sshd.remoteSessions().sort()).toEqual(['r1@mix', 'r2@mix']);
    // The outage and the recovery are rows in the event log, once each.
    const ev = await w.cli(['events', '--json']);
    expect(
      ev.json.events.filter((e: { kind: string }) => e.kind.startsWith('host.')).map((e: { kind: string }) => e.kind),
    ).toEqual(['host.reachable', 'host.unreachable', 'host.reachable']);
  });
});
