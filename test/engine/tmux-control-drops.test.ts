/**
 * The held control-mode client when its connection goes: the server killed under a stream of
 * commands, the session it is attached to destroyed, a command that never answers, no server at
 * all. Real tmux on a private -L server.
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { countingExec, liveExec } from '../../src/main/engine/deps';
import type { Engine } from '../../src/main/engine/engine';
import { upRig } from '../../src/main/engine/services/up';
import { TmuxClient } from '../../src/main/engine/tmux/client';
import { TmuxLinks } from '../../src/main/engine/tmux/held';
import { RigWorld, shellRigYaml } from '../support/rig';
import { waitFor } from '../support/tmux';

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

describe('held tmux client: drops and reconnects', () => {
  let w: RigWorld;
  beforeEach(() => {
    w = new RigWorld();
  });
  afterEach(() => w.cleanup());

  it('server killed under a stream: each command gets its own answer or a clear error, and the client is back within 1 s', async () => {
    w.tmux.newSession('one', ['sleep', '600']);
    const e = w.engine();
    expect((await e.own.run(['display-message', '-p', 'hello'])).stdout).toBe('hello\n');
    const firstPid = e.deps.tmux.get(e.ownKey)!.serverPid;
    let stop = false;
    const seen: { tag: string; at: number; code: number | null; stdout: string; stderr: string }[] = [];
    const loops = Array.from({ length: 6 }, async (_, k) => {
      for (let i = 0; !stop; i++) {
        const tag = `k${k}-${i}`;
        const r = await e.own.run(['display-message', '-p', tag, ';', 'display-message', '-p', `${tag}-b`]);
        seen.push({ tag, at: Date.now(), code: r.code, stdout: r.stdout, stderr: r.stderr });
        await sleep(2);
      }
    });
    await sleep(400);
    w.tmux.kill();
    await sleep(400);
    w.tmux.newSession('two', ['sleep', '600']);
    const upAt = Date.now();
    await waitFor(() => seen.some((s) => s.at > upAt && s.code === 0), { what: 'an answer from the new server' });
    const backAt = seen.find((s) => s.at > upAt && s.code === 0)!.at;
    await sleep(200);
    stop = true;
    await Promise.all(loops);

    const ok = seen.filter((s) => s.code === 0);
    const failed = seen.filter((s) => s.code !== 0);
    expect(ok.length).toBeGreaterThan(20);
    expect(failed.length).toBeGreaterThan(0);
    for (const s of ok) expect(s.stdout, s.tag).toBe(`${s.tag}\n${s.tag}-b\n`);
    for (const s of failed) {
      expect(s.stdout, s.tag).toBe('');
      expect(s.stderr, s.tag).toMatch(
        /no server running on|went away while the command ran|restarted .* it was not run/,
      );
    }
    expect(backAt - upAt, 'back within 1 s of the server').toBeLessThan(1000);
    expect(e.deps.tmux.get(e.ownKey)!.serverPid).not.toBe(firstPid);
  });

  it('the session it is attached to is destroyed: commands queued behind run on the next client', async () => {
    w.tmux.newSession('a', ['sleep', '600']);
    w.tmux.newSession('b', ['sleep', '600']);
    const e = w.engine();
    const mine = (await e.own.run(['display-message', '-p', '#{session_name}'])).stdout.trim();
    expect(['a', 'b']).toContain(mine);
    const answers = await Promise.all([
      e.own.run(['kill-session', '-t', mine]),
      ...Array.from({ length: 10 }, (_, i) => e.own.run(['display-message', '-p', `after-${i}`])),
    ]);
    expect(answers[0]!.code, answers[0]!.stderr).toBe(0);
    for (const [i, r] of answers.slice(1).entries())
      expect(r, `after-${i}`).toMatchObject({ code: 0, stdout: `after-${i}\n` });
    expect(w.sessions().map((s) => s.name)).toEqual([mine === 'a' ? 'b' : 'a']);
    expect(e.deps.tmux.spawns).toBeLessThanOrEqual(2);
  });

  it('a command that never answers times out alone; the next one gets its own answer', async () => {
    w.tmux.newSession('a', ['sleep', '600']);
    const e = w.engine();
    const slow = new TmuxClient(e.own.ref, {
      exec: liveExec,
      control: e.deps.tmux.get(e.ownKey) ?? undefined,
      timeoutMs: 400,
    });
    await e.own.run(['display-message', '-p', 'warm']);
    const stuck = slow.run(['run-shell', 'sleep 3']);
    const next = e.own.run(['display-message', '-p', 'next']);
    expect(await stuck).toMatchObject({ timedOut: true, code: null });
    expect(await next).toMatchObject({ code: 0, stdout: 'next\n' });
    expect((await e.own.run(['display-message', '-p', 'again'])).stdout).toBe('again\n');
  });

  it('no server: answers "not running" without a spawn; the first seat starts the server one-shot, the rest go held', async () => {
    const exec = countingExec(liveExec);
    const e = w.engine({ exec, tmux: new TmuxLinks('held') });
    const listed = await e.own.listPanes();
    expect(listed).toMatchObject({ ok: true, running: false, panes: [] });
    expect(await e.own.probeSession('$0')).toMatchObject({ state: 'absent' });
    expect(exec.calls.filter((c) => c.includes(w.tmux.socketName))).toEqual([]);
    expect(e.deps.tmux.spawns).toBe(0);
    const up = await upRig(e, w.spec('rig.yaml', shellRigYaml('demo', ['a', 'b', 'c'])));
    expect(up.ok, JSON.stringify(up)).toBe(true);
    // Spawns for this world's own server (other servers on the machine are the census's, one-shot).
    const tmuxSpawns = exec.calls.filter((c) => c[0] === 'tmux' && c.includes(w.tmux.socketName));
    // One spawn: it starts the server and reads its new-session from stdin (never in its argv).
    expect(tmuxSpawns.map((c) => c.slice(-4))).toEqual([['start-server', ';', 'source-file', '-']]);
    expect(e.deps.tmux.spawns).toBe(1);
    const seats = w.sessions().map((s) => s.seat);
    expect(seats.sort()).toEqual(['a@demo', 'b@demo', 'c@demo']);
  });

  it('a roster refresh spawns nothing once the client is held', async () => {
    const exec = countingExec(liveExec);
    const e: Engine = w.engine({ exec, tmux: new TmuxLinks('held') });
    expect((await upRig(e, w.spec('rig.yaml', shellRigYaml('demo', ['a', 'b'])))).ok).toBe(true);
    await e.roster();
    const before = { exec: exec.calls.filter((c) => c.includes(w.tmux.socketName)).length, held: e.deps.tmux.spawns };
    for (let i = 0; i < 5; i++) {
      const r = await e.roster();
      expect(r.panes.filter((p) => p.server === e.ownKey)).toHaveLength(2);
    }
    expect(exec.calls.filter((c) => c.includes(w.tmux.socketName)).length).toBe(before.exec);
    expect(e.deps.tmux.spawns).toBe(before.held);
  });
});
