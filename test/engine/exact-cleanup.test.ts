import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { Exec } from '../../src/main/engine/deps';
import { liveExec } from '../../src/main/engine/deps';
import { stopSeat } from '../../src/main/engine/seats/stop';
import { RigWorld, shellRigYaml } from '../support/rig';

describe('exact cleanup (design.md invariant 4)', () => {
  let w: RigWorld;
  beforeEach(async () => {
    w = new RigWorld();
    expect((await w.cli(['up', w.spec('rig.yaml', shellRigYaml('demo', ['lead', 'worker1']))])).code).toBe(0);
  });
  afterEach(() => w.cleanup());

  it("never kills a session that only shares the seat's name after the server restarted", async () => {
    w.tmux.kill();
    // Someone else's sessions on a new server: same names, and the same $ ids as ours had.
    w.tmux.newSession('lead@demo', ['sleep', '300']);
    w.tmux.newSession('worker1@demo', ['sleep', '300']);
    const down = await w.cli(['down', 'demo', '--json']);
    expect(down.code, down.stdout).toBe(0);
    expect(down.json.seats.map((s: { outcome: string }) => s.outcome)).toEqual(['already_gone', 'already_gone']);
    expect(
      w
        .sessions()
        .map((s) => s.name)
        .sort(),
    ).toEqual(['lead@demo', 'worker1@demo']);
    const ev = await w.cli(['events', '--rig', 'demo', '--json']);
    expect(ev.json.events.filter((e: { kind: string }) => e.kind === 'seat.kill')).toHaveLength(0);
    expect(ev.json.events.filter((e: { kind: string }) => e.kind === 'seat.already_gone')).toHaveLength(2);
  });

  it('reports already gone when the tmux server itself is gone', async () => {
    w.tmux.kill();
    const down = await w.cli(['down', 'demo', '--json']);
    expect(down.json.seats.map((s: { outcome: string; why: string }) => s.outcome)).toEqual([
      'already_gone',
      'already_gone',
    ]);
  });

  it('a kill probe that times out is reported as not removed and the row stays live (fault: injected exec)', async () => {
    const slowKill: Exec = (file, args, opts) =>
      args.includes('if-shell')
        ? Promise.resolve({ code: null, signal: 'SIGKILL', stdout: '', stderr: '', timedOut: true })
        : liveExec(file, args, opts);
    const engine = w.engine({ exec: slowKill });
    const r = await stopSeat(engine.ports, 'lead@demo');
    expect(r.ok).toBe(false);
    if (!r.ok) expect(r.code).toBe('NOT_REMOVED');
    expect(engine.store.sessions.live('lead@demo')).toBeDefined();
    expect(engine.store.events.list({ seat: 'lead@demo', kind: 'seat.kill_not_removed' })).toHaveLength(1);
    expect(w.sessions().map((s) => s.seat)).toContain('lead@demo');
  });

  it('an unknown tmux error after the kill is reported as not removed (fault: injected exec)', async () => {
    const confused: Exec = (file, args, opts) =>
      args.includes('has-session')
        ? Promise.resolve({ code: 1, signal: null, stdout: '', stderr: 'server exited unexpectedly', timedOut: false })
        : liveExec(file, args, opts);
    const engine = w.engine({ exec: confused });
    const r = await stopSeat(engine.ports, 'worker1@demo');
    expect(r.ok).toBe(false);
    if (!r.ok) {
      expect(r.code).toBe('NOT_REMOVED');
      expect(r.message).toContain('server exited unexpectedly');
    }
    expect(engine.store.sessions.live('worker1@demo')).toBeDefined();
  });

  /** The kill command answers with an error tmux gives no meaning here, after running it or not. */
  const erring =
    (runIt: boolean): Exec =>
    async (file, args, opts) => {
      if (!args.includes('if-shell')) return liveExec(file, args, opts);
      if (runIt) await liveExec(file, args, opts);
      return { code: 1, signal: null, stdout: '', stderr: 'no current target', timedOut: false };
    };

  it('a kill that ran but answered with an error is proven by the probe: removed (fault: injected exec)', async () => {
    const engine = w.engine({ exec: erring(true) });
    const r = await stopSeat(engine.ports, 'lead@demo');
    expect(r, JSON.stringify(r)).toMatchObject({ ok: true, stopped: { outcome: 'removed' } });
    expect(w.sessions().map((s) => s.seat)).toEqual(['worker1@demo']);
    expect(engine.store.sessions.live('lead@demo')).toBeUndefined();
  });

  it('the same error from a kill that did not run leaves the session, not removed (fault: injected exec)', async () => {
    const engine = w.engine({ exec: erring(false) });
    const r = await stopSeat(engine.ports, 'lead@demo');
    expect(r).toMatchObject({ ok: false, code: 'NOT_REMOVED', message: expect.stringContaining('no current target') });
    expect(w.sessions().map((s) => s.seat)).toContain('lead@demo');
    expect(engine.store.sessions.live('lead@demo')).toBeDefined();
  });

  it("a probe answered 'no current target' (the held client after the server's last session went) proves absence: removed (fault: injected exec)", async () => {
    // The kill runs and errs; the probe that follows gets what a held client whose session is gone
    // gets from a server with no session left. Before, that read as unprovable: NOT_REMOVED.
    const noTarget: Exec = async (file, args, opts) => {
      if (args.includes('if-shell')) return erring(true)(file, args, opts);
      if (args.includes('has-session'))
        return { code: 1, signal: null, stdout: '', stderr: 'no current target\n', timedOut: false };
      return liveExec(file, args, opts);
    };
    const engine = w.engine({ exec: noTarget });
    const r = await stopSeat(engine.ports, 'lead@demo');
    expect(r, JSON.stringify(r)).toMatchObject({ ok: true, stopped: { outcome: 'removed' } });
    expect(w.sessions().map((s) => s.seat)).toEqual(['worker1@demo']);
  });

  it('down reports each seat and fails when any seat was not removed (fault: injected exec)', async () => {
    const slowKill: Exec = (file, args, opts) =>
      args.includes('if-shell') && args.some((a) => a.includes('$1'))
        ? Promise.resolve({ code: null, signal: 'SIGKILL', stdout: '', stderr: '', timedOut: true })
        : liveExec(file, args, opts);
    const engine = w.engine({ exec: slowKill });
    const { downRig } = await import('../../src/main/engine/services/down');
    const r = await downRig(engine, 'demo');
    expect(r.ok).toBe(false);
    if (!r.ok)
      expect((r.evidence!.seats as { outcome: string }[]).map((s) => s.outcome).sort()).toEqual([
        'not_removed',
        'removed',
      ]);
  });
});
