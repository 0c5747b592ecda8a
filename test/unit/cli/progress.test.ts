import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { parseArgs } from '../../../src/cli/args';
import { COMMANDS } from '../../../src/cli/commands';
import { FOLLOW, type FollowDeps, progressLine, withProgress } from '../../../src/cli/progress';
import type { EventRow } from '../../../src/shared/contract';

/** An event log the follower reads through a stand-in `events` call, a clock and timers run by hand. */
function world(initial: EventRow[] = []) {
  const log = [...initial];
  let now = 1_000;
  let pending: { fn: () => void; at: number }[] = [];
  const calls: Record<string, unknown>[] = [];
  const printed: string[] = [];
  let failing = false;
  const deps: FollowDeps = {
    call: async (method, params) => {
      if (method !== 'events') throw new Error(`unexpected ${method}`);
      const p = params as { afterSeq?: number; seat?: string; rig?: string; newest?: number };
      calls.push({ ...p });
      if (failing) return { ok: false, code: 'STORE_UNREADABLE', message: 'no log' } as never;
      if (p.newest) return { ok: true, events: log.slice(-p.newest) } as never;
      const rows = log.filter(
        (e) => e.seq > (p.afterSeq ?? 0) && (!p.seat || e.seat === p.seat) && (!p.rig || e.rig === p.rig),
      );
      return { ok: true, events: rows } as never;
    },
    print: (l) => void printed.push(l),
    now: () => now,
    after: (fn, ms) => {
      const t = { fn, at: now + ms };
      pending.push(t);
      return { cancel: () => void (pending = pending.filter((x) => x !== t)) };
    },
  };
  const add = (kind: string, seat: string | null, data: Record<string, unknown> = {}) =>
    log.push({ seq: log.length + 1, at: now, kind, rig: 'demo', seat, data });
  /** Moves the clock on, running the timers that come due (and the polls they start) in order. */
  const settle = async () => {
    for (let i = 0; i < 10; i++) await Promise.resolve();
  };
  const advance = async (ms: number) => {
    await settle();
    const end = now + ms;
    for (;;) {
      const due = pending.filter((t) => t.at <= end).sort((a, b) => a.at - b.at)[0];
      if (!due) break;
      pending = pending.filter((t) => t !== due);
      now = due.at;
      due.fn();
      await settle();
    }
    now = end;
  };
  return { deps, add, advance, printed, calls, pending: () => pending, fail: () => void (failing = true) };
}

const row = (seq: number, kind: string, seat: string | null, data: Record<string, unknown> = {}): EventRow => ({
  seq,
  at: 0,
  kind,
  rig: 'demo',
  seat,
  data,
});

describe('a slow command shows its progress from the event log', () => {
  it('prints what the engine records while the command runs, from after its start, and nothing older', async () => {
    const w = world([row(1, 'seat.launch', 'old@demo', { runtime: 'shell' })]);
    let finish!: (v: string) => void;
    const running = withProgress(
      w.deps,
      { label: 'up rig.yaml', json: false },
      () => new Promise<string>((r) => (finish = r)),
    );
    await w.advance(0);
    w.add('seat.launch', 'lead@demo', { runtime: 'claude-code', mode: 'fresh', paneId: '%3' });
    w.add('seat.activity', 'lead@demo', { activity: 'working' });
    await w.advance(FOLLOW.pollMs);
    expect(w.printed).toEqual(['lead@demo: launched (fresh) in pane %3']);
    w.add('seat.conversation_bound', 'lead@demo', { to: 'c-1' });
    // Recorded just before the command answers: the last read after it still shows it.
    finish('answer');
    expect(await running).toBe('answer');
    expect(w.printed).toEqual(['lead@demo: launched (fresh) in pane %3', 'lead@demo: conversation c-1 bound']);
    expect(w.pending()).toEqual([]);
  });

  it("follows the command's seat, or its rig, and nothing else", async () => {
    const w = world();
    const seat = withProgress(w.deps, { seat: 'lead@demo', label: 'stop lead@demo', json: false }, async () => {
      w.add('seat.stop', 'other@demo');
      w.add('seat.stop', 'lead@demo');
      return 1;
    });
    await seat;
    expect(w.printed).toEqual(['lead@demo: stopped']);
    expect(w.calls.at(-1)).toMatchObject({ seat: 'lead@demo' });
    const rig = world();
    await withProgress(rig.deps, { rig: 'demo', label: 'down demo', json: false }, async () => 1);
    expect(rig.calls.at(-1)).toMatchObject({ rig: 'demo' });
    expect(rig.calls.at(-1)).not.toHaveProperty('seat');
  });

  it('says it is still working when nothing new lands for a while, and not more often', async () => {
    const w = world();
    let finish!: () => void;
    const running = withProgress(
      w.deps,
      { seat: 'g@demo', label: 'stop g@demo', json: false },
      () => new Promise<void>((r) => (finish = r)),
    );
    await w.advance(FOLLOW.heartbeatMs - 1);
    expect(w.printed).toEqual([]);
    await w.advance(FOLLOW.pollMs);
    expect(w.printed).toEqual(['rigdesk stop g@demo: still working (5 s)']);
    await w.advance(FOLLOW.heartbeatMs - 1);
    expect(w.printed).toHaveLength(1);
    await w.advance(FOLLOW.pollMs);
    expect(w.printed).toEqual([
      'rigdesk stop g@demo: still working (5 s)',
      'rigdesk stop g@demo: still working (10 s)',
    ]);
    finish();
    await running;
  });

  it('reads one poll at a time: the next is armed only once the last has answered', async () => {
    const w = world();
    let finish!: () => void;
    const running = withProgress(w.deps, { label: 'up', json: false }, () => new Promise<void>((r) => (finish = r)));
    await w.advance(FOLLOW.pollMs * 10);
    // The start's read, then one read per gap, never two armed at once.
    expect(w.calls).toHaveLength(11);
    expect(w.pending()).toHaveLength(1);
    finish();
    await running;
  });

  it('--json: each line is the row itself under "progress"', async () => {
    const w = world();
    await withProgress(w.deps, { rig: 'demo', label: 'down demo', json: true }, async () => {
      w.add('seat.kill', 'lead@demo', { sessionId: '$1' });
    });
    expect(w.printed.map((l) => JSON.parse(l))).toEqual([
      { progress: { seq: 1, at: 1000, kind: 'seat.kill', rig: 'demo', seat: 'lead@demo', data: { sessionId: '$1' } } },
    ]);
  });

  it('a log it cannot read costs the command nothing: it runs, and nothing is printed', async () => {
    const w = world();
    w.fail();
    expect(await withProgress(w.deps, { label: 'up', json: false }, async () => 'ran')).toBe('ran');
    expect(w.printed).toEqual([]);
    expect(w.pending()).toEqual([]);
  });

  it('a read that throws mid-command prints nothing and leaves the answer to the command', async () => {
    const w = world();
    const call = w.deps.call;
    let reads = 0;
    const deps: FollowDeps = {
      ...w.deps,
      call: (async (method: 'events', params: { newest?: number }) => {
        reads++;
        if (reads > 1) throw new Error('socket closed');
        return call(method, params);
      }) as FollowDeps['call'],
    };
    let finish!: () => void;
    const running = withProgress(
      deps,
      { label: 'up', json: false },
      () => new Promise<string>((r) => (finish = () => r('answer'))),
    );
    await w.advance(FOLLOW.pollMs * 3);
    finish();
    expect(await running).toBe('answer');
    expect(w.printed).toEqual([]);
  });

  it('prints only the kinds a person follows a command by', () => {
    expect(progressLine(row(1, 'seat.activity', 'a@demo'), false)).toBeUndefined();
    expect(progressLine(row(1, 'fence.reserved', 'a@demo'), false)).toBeUndefined();
    expect(progressLine(row(1, 'seat.launch_refused', 'a@demo', { code: 'CONVERSATION_LIVE_ELSEWHERE' }), false)).toBe(
      'a@demo: launch refused: CONVERSATION_LIVE_ELSEWHERE',
    );
    expect(progressLine(row(1, 'restore.seat', 'a@demo', { step: 'ended_gone' }), false)).toBe(
      'a@demo: restore: ended gone',
    );
    expect(progressLine({ ...row(1, 'rig.up', null) }, false)).toBe('demo: rig brought up');
  });
});

describe("up's progress follows the rig its spec names", () => {
  const dir = mkdtempSync(join(tmpdir(), 'rd-up-target-'));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));
  const targetOf = (yaml: string) => {
    const spec = join(dir, `${Math.random().toString(36).slice(2)}.yaml`);
    writeFileSync(spec, yaml);
    const r = COMMANDS.up!.toRequest(parseArgs(['up', spec]));
    if (!r.ok) throw new Error(r.message);
    return r.prepared.target();
  };

  it("the spec's name is the rig followed, so another rig's launches in the same seconds are not shown", () => {
    expect(targetOf('name: demo\npods: []\n')).toEqual({ rig: 'demo' });
  });

  it('a spec it cannot read a name from follows every row, and the engine answers for the spec', () => {
    expect(targetOf('pods: [\n')).toEqual({});
    expect(targetOf('name: [1]\n')).toEqual({});
    const r = COMMANDS.up!.toRequest(parseArgs(['up', join(dir, 'missing.yaml')]));
    expect(r.ok && r.prepared.target()).toEqual({});
  });
});
