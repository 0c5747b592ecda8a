import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { RigWorld, shellRigYaml } from '../support/rig';
import { waitFor } from '../support/tmux';

describe('up, ps, send, capture, down on shell seats (real tmux, real CLI process)', () => {
  let w: RigWorld;
  beforeEach(() => {
    w = new RigWorld();
  });
  afterEach(() => w.cleanup());

  it('creates one tagged session per seat on its own server and down removes exactly those', async () => {
    const spec = w.spec('rig.yaml', shellRigYaml('demo', ['lead', 'worker1', 'worker2']));
    const up = await w.cli(['up', spec, '--json']);
    expect(up.code, up.stderr + up.stdout).toBe(0);
    expect(up.json.seats.map((s: { outcome: string }) => s.outcome)).toEqual(['launched', 'launched', 'launched']);
    // A session someone else made on the same server must survive `down`.
    w.tmux.newSession('bystander', ['sleep', '300']);
    expect(
      w
        .sessions()
        .map((s) => s.seat)
        .sort(),
    ).toEqual(['', 'lead@demo', 'worker1@demo', 'worker2@demo']);

    const ps = await w.cli(['ps', '--json']);
    expect(ps.code).toBe(0);
    for (const row of ps.json.seats) {
      expect(row).toMatchObject({ runtime: 'shell', state: 'running' });
      expect(row.paneId).toMatch(/^%\d+$/);
      expect(row.pid).toBeGreaterThan(1);
      expect(['starting', 'idle', 'working', 'unknown']).toContain(row.activity);
      expect(row.attach.slice(0, 3)).toEqual(['tmux', '-L', w.tmux.socketName]);
    }

    const down = await w.cli(['down', 'demo', '--json']);
    expect(down.code, down.stdout).toBe(0);
    expect(down.json.seats.map((s: { outcome: string }) => s.outcome)).toEqual(['removed', 'removed', 'removed']);
    expect(w.sessions().map((s) => s.name)).toEqual(['bystander']);
    const ev = await w.cli(['events', '--rig', 'demo', '--json']);
    expect(
      ev.json.events
        .filter((e: { kind: string }) => e.kind === 'seat.kill')
        .map((e: { seat: string }) => e.seat)
        .sort(),
    ).toEqual(['lead@demo', 'worker1@demo', 'worker2@demo']);
  });

  it('send pastes literal text into the pane and capture reads it back', async () => {
    const spec = w.spec('rig.yaml', shellRigYaml('demo', ['lead']));
    expect((await w.cli(['up', spec])).code).toBe(0);
    await waitFor(
      async () =>
        (await w.cli(['capture', 'lead@demo'])).stdout.includes('$') ||
        (await w.cli(['capture', 'lead@demo'])).stdout.includes('#'),
      { what: 'shell prompt' },
    );
    const sent = await w.cli(['send', 'lead@demo', 'echo', '$((6*7))', '--json']);
    expect(sent.code, sent.stdout + sent.stderr).toBe(0);
    expect(sent.json.sent.status).toBe('delivered');
    await waitFor(async () => /^42$/m.test((await w.cli(['capture', 'lead@demo'])).stdout), { what: '42 on screen' });
  });

  it('launch of a running seat is refused, stop is recorded as intentional, launch starts it again', async () => {
    const spec = w.spec('rig.yaml', shellRigYaml('demo', ['lead']));
    expect((await w.cli(['up', spec])).code).toBe(0);
    const again = await w.cli(['launch', 'lead@demo', '--json']);
    expect(again.code).toBe(1);
    expect(again.json.code).toBe('SEAT_ALREADY_RUNNING');
    const stop = await w.cli(['stop', 'lead@demo', '--json']);
    expect(stop.json.stopped.outcome).toBe('removed');
    const ps = await w.cli(['ps', '--json']);
    expect(ps.json.seats[0]).toMatchObject({ state: 'stopped', stoppedOnPurpose: true });
    const relaunch = await w.cli(['launch', 'lead@demo', '--json']);
    expect(relaunch.code, relaunch.stdout).toBe(0);
    expect(w.sessions().filter((s) => s.seat === 'lead@demo')).toHaveLength(1);
  });

  it('stop of a seat whose session ended records it stopped once; a second stop records nothing', async () => {
    const spec = w.spec('rig.yaml', shellRigYaml('demo', ['lead']));
    expect((await w.cli(['up', spec])).code).toBe(0);
    const sid = w.sessions().find((s) => s.seat === 'lead@demo')!.id;
    w.tmux.run(['kill-session', '-t', sid]);
    // Reconcile finds it gone and ends its session row: no session, and nobody stopped it.
    expect((await w.cli(['reconcile', '--json'])).code).toBe(0);
    expect((await w.cli(['ps', '--json'])).json.seats[0].state).toBe('stopped');
    expect((await w.cli(['ps', '--json'])).json.seats[0].stoppedOnPurpose).toBe(false);
    const stopsOf = async () =>
      (await w.cli(['events', '--rig', 'demo', '--json'])).json.events.filter(
        (e: { kind: string }) => e.kind === 'seat.stop',
      );
    const stop = await w.cli(['stop', 'lead@demo', '--json']);
    expect(stop.json.stopped.outcome).toBe('not_running');
    expect((await stopsOf()).map((e: { data: unknown }) => e.data)).toEqual([{ outcome: 'not_running' }]);
    const ps = await w.cli(['ps', '--json']);
    expect(ps.json.seats[0]).toMatchObject({ state: 'stopped', stoppedOnPurpose: true });
    expect((await w.cli(['stop', 'lead@demo', '--json'])).json.stopped.outcome).toBe('not_running');
    expect(await stopsOf()).toHaveLength(1);
  });

  it('attach --print names the server with -L and the session by id', async () => {
    const spec = w.spec('rig.yaml', shellRigYaml('demo', ['lead']));
    await w.cli(['up', spec]);
    const a = await w.cli(['attach', 'lead@demo', '--print']);
    expect(a.code).toBe(0);
    expect(a.stdout.trim()).toMatch(new RegExp(`^tmux -L ${w.tmux.socketName} attach-session -t '\\$\\d+'$`));
  });
});
