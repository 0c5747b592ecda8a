import { spawn } from 'node:child_process';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { RIGDESK_BIN, RigWorld, shellRigYaml } from '../support/rig';
import { waitFor } from '../support/tmux';

/** Starts `rigdesk launch` with a test fault that pauses it at a fence phase, then SIGKILLs it. */
async function killAtPhase(w: RigWorld, seat: string, point: string): Promise<void> {
  const child = spawn(process.execPath, [RIGDESK_BIN, 'launch', seat], {
    env: { ...w.env, RIGDESK_TEST_FAULT: `${point}:pause` },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let err = '';
  child.stderr.on('data', (d: Buffer) => (err += d.toString()));
  const exited = new Promise((r) => child.once('exit', r));
  await waitFor(() => err.includes(`paused at ${point}`), { what: `launch paused at ${point}`, timeoutMs: 20_000 });
  process.kill(child.pid!, 'SIGKILL');
  await exited;
}

describe('the create fence (design.md invariant 3)', () => {
  let w: RigWorld;
  beforeEach(async () => {
    w = new RigWorld();
    const spec = w.spec('rig.yaml', shellRigYaml('demo', ['lead']));
    const up = await w.cli(['up', spec]);
    expect(up.code, up.stdout + up.stderr).toBe(0);
    const stop = await w.cli(['stop', 'lead@demo']);
    expect(stop.code, stop.stdout + stop.stderr).toBe(0);
  });
  afterEach(() => w.cleanup());

  it('two launches of one seat started at the same instant make one session and one refusal', async () => {
    for (let round = 0; round < 3; round++) {
      const [a, b] = await Promise.all([
        w.cli(['launch', 'lead@demo', '--json']),
        w.cli(['launch', 'lead@demo', '--json']),
      ]);
      const codes = [a, b].map((r) => r.code).sort();
      expect(codes, a.stdout + b.stdout).toEqual([0, 1]);
      const refusal = (a.code === 1 ? a : b).json;
      expect(['LAUNCH_IN_PROGRESS', 'SEAT_ALREADY_RUNNING']).toContain(refusal.code);
      expect(w.sessions().filter((s) => s.seat === 'lead@demo')).toHaveLength(1);
      const stop = await w.cli(['stop', 'lead@demo']);
      expect(stop.code, stop.stdout + stop.stderr).toBe(0);
    }
  });

  it('a launch killed after reserving leaves a row the next launch abandons by census, then launches', async () => {
    await killAtPhase(w, 'lead@demo', 'fence.after_reserved');
    expect(w.sessions()).toHaveLength(0);
    const next = await w.cli(['launch', 'lead@demo', '--json']);
    expect(next.code, next.stdout).toBe(0);
    const ev = await w.cli(['events', '--seat', 'lead@demo', '--json']);
    const census = ev.json.events.filter((e: { kind: string }) => e.kind === 'fence.census');
    expect(census).toHaveLength(1);
    expect(census[0].data).toMatchObject({ phase: 'reserved', outcome: 'abandoned' });
    expect(w.sessions().filter((s) => s.seat === 'lead@demo')).toHaveLength(1);
  });

  it('a launch killed after creating the session is adopted by census, never duplicated', async () => {
    await killAtPhase(w, 'lead@demo', 'fence.after_helper_invoked');
    expect(w.sessions().filter((s) => s.seat === 'lead@demo')).toHaveLength(1);
    const next = await w.cli(['launch', 'lead@demo', '--json']);
    expect(next.json.code).toBe('SEAT_ALREADY_RUNNING');
    const ev = await w.cli(['events', '--seat', 'lead@demo', '--json']);
    const census = ev.json.events.filter((e: { kind: string }) => e.kind === 'fence.census');
    expect(census.map((e: { data: { outcome: string; phase: string } }) => [e.data.phase, e.data.outcome])).toEqual([
      ['helper_invoked', 'adopted'],
    ]);
    expect(w.sessions().filter((s) => s.seat === 'lead@demo')).toHaveLength(1);
    // The adopted session is the seat's: stop removes it by identity.
    const stop = await w.cli(['stop', 'lead@demo', '--json']);
    expect(stop.json.stopped.outcome).toBe('removed');
    expect(w.sessions()).toHaveLength(0);
  });

  it('a launch killed after binding the identity is released by census on the next launch', async () => {
    await killAtPhase(w, 'lead@demo', 'fence.after_created');
    const ps = await w.cli(['ps', '--json']);
    expect(ps.json.seats[0].state).toBe('running');
    expect((await w.cli(['launch', 'lead@demo', '--json'])).json.code).toBe('SEAT_ALREADY_RUNNING');
    const ev = await w.cli(['events', '--seat', 'lead@demo', '--json']);
    const census = ev.json.events.filter((e: { kind: string }) => e.kind === 'fence.census');
    expect(census.map((e: { data: { outcome: string; phase: string } }) => [e.data.phase, e.data.outcome])).toEqual([
      ['created', 'adopted'],
    ]);
    expect(w.sessions().filter((s) => s.seat === 'lead@demo')).toHaveLength(1);
  });

  it('a launch takes a roster only when a check needs one, and one for all its checks: none for a stopped seat with nothing left, one for a census that adopts and the running seat it then finds', async () => {
    const e = w.engine();
    let rosters = 0;
    const counted = {
      ...e.ports,
      roster: () => {
        rosters++;
        return e.ports.roster();
      },
    };
    const { launchSeat } = await import('../../src/main/engine/seats/launch');
    const first = await launchSeat(counted, 'lead@demo');
    expect(first.ok, JSON.stringify(first)).toBe(true);
    expect(rosters).toBe(0);
    expect((await w.cli(['stop', 'lead@demo'])).code).toBe(0);

    // A launch that died after creating: the census adopts its session (it needs the roster), and the
    // seat is then found running (that check reads the same roster, taken once).
    await killAtPhase(w, 'lead@demo', 'fence.after_helper_invoked');
    rosters = 0;
    const next = await launchSeat(counted, 'lead@demo');
    expect(next.ok ? 'launched' : next.code).toBe('SEAT_ALREADY_RUNNING');
    expect(rosters).toBe(1);
    const census = e.store.events.list({ seat: 'lead@demo', kind: 'fence.census' });
    expect(census.map((c) => c.data)).toEqual([
      expect.objectContaining({ phase: 'helper_invoked', outcome: 'adopted' }),
    ]);
    expect(w.sessions().filter((s) => s.seat === 'lead@demo')).toHaveLength(1);
  });

  it('a launch deciding from a roster taken before another launch created the session refuses, and never ends that row (fault: stale roster injected)', async () => {
    const late = w.engine();
    const stale = await late.roster(); // taken while the seat is stopped
    const first = await w.cli(['launch', 'lead@demo', '--json']);
    expect(first.code, first.stdout).toBe(0);
    const { launchSeat } = await import('../../src/main/engine/seats/launch');
    const r = await launchSeat({ ...late.ports, roster: async () => stale }, 'lead@demo');
    expect(r.ok).toBe(false);
    if (!r.ok) expect(r.code).toBe('SEAT_ALREADY_RUNNING');
    expect(late.store.sessions.live('lead@demo')?.sessionId).toBe(first.json.launched.sessionId);
    expect(w.sessions().filter((s) => s.seat === 'lead@demo')).toHaveLength(1);
  });
});
