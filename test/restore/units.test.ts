/**
 * Small pieces of issue 5 without tmux or agents: the seat and session writes fork and restart
 * need (restore-seats.ts), the restart gate (a pane never starts a second writer before the old
 * one is gone), and the "conversation missing" reading.
 */
import { spawn, execFile } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { Store } from '../../src/main/engine/store';
import { insertSeat, movePanePid, removeUnusedSeat } from '../../src/main/engine/store/restore-seats';
import { gateArgv } from '../../src/main/engine/restore/lifecycle';
import { waitGone } from '../../src/main/engine/restore/restart-pane';
import { RigWorld } from '../support/rig';
import { exactly, missingReported, wrapperClaim } from '../../src/main/engine/restore/verify';
import type { Ports } from '../../src/main/engine/ports';
import { systemClock } from '../../src/main/engine/deps';
import type { RosterPane } from '../../src/main/engine/roster/types';

const spec = {
  name: 'crew',
  specPath: '/x/rig.yaml',
  edges: [],
  pods: [
    {
      id: 'team',
      members: [
        {
          id: 'a',
          runtime: 'claude-code',
          cwd: '/w',
          command: null,
          args: ['--x'],
          env: { K: 'v' },
          restorePolicy: 'resume_if_possible',
        },
      ],
    },
  ],
};

function store(): Store {
  const s = Store.open(':memory:');
  s.rigs.upsert(spec as never);
  return s;
}

const seat = (member: string, rig = 'crew') => ({
  seat: `${member}@${rig}`,
  rig,
  pod: 'team',
  member,
  runtime: 'claude-code',
  cwd: '/w',
  command: null,
  args: ['--x'],
  env: { K: 'v' },
  restorePolicy: 'resume_if_possible',
});

describe('restore-seats', () => {
  it('insertSeat adds a seat to an existing rig with the columns upsert writes, and never overwrites one', () => {
    const s = store();
    expect(insertSeat(s, seat('b'), 1)).toBe(true);
    expect(s.rigs.seat('b@crew')).toEqual({
      ...seat('b'),
      conversationId: null,
      stoppedOnPurpose: false,
      host: 'local',
    });
    expect(insertSeat(s, { ...seat('b'), cwd: '/other' }, 1)).toBe(false);
    expect(s.rigs.seat('b@crew')!.cwd).toBe('/w');
    expect(insertSeat(s, seat('a'), 1)).toBe(false);
    expect(insertSeat(s, seat('c', 'nope'), 1)).toBe(false);
    // A later `up` of the spec keeps the added seat (upsert never deletes seats).
    s.rigs.upsert(spec as never);
    expect(s.rigs.seats('crew').map((x) => x.seat)).toEqual(['a@crew', 'b@crew']);
  });

  it('removeUnusedSeat removes only a seat with no session and no reservation', () => {
    const s = store();
    insertSeat(s, seat('b'), 1);
    insertSeat(s, seat('c'), 1);
    const id = {
      server: 'L:x',
      serverPid: 1,
      sessionId: '$1',
      sessionCreated: 1,
      sessionName: 'c@crew',
      paneId: '%1',
      panePid: 10,
    };
    s.sessions.insertLive('c@crew', 'claude-code', id, {});
    expect(removeUnusedSeat(s, 'c@crew')).toBe(false);
    expect(removeUnusedSeat(s, 'b@crew')).toBe(true);
    expect(s.rigs.seat('b@crew')).toBeUndefined();
    insertSeat(s, seat('d'), 1);
    s.reservations.reserve({
      seat: 'd@crew',
      attempt: 'x',
      holderPid: 1,
      holderStart: null,
      server: 'L:x',
      sessionName: 'd@crew',
      plan: { mode: 'fresh', runtime: 'claude-code' },
    });
    expect(removeUnusedSeat(s, 'd@crew')).toBe(false);
  });

  it('movePanePid keeps the row (same id, $session, %pane) and moves only its pane pid, compare-and-set on the old pid', () => {
    const s = store();
    const id = {
      server: 'L:x',
      serverPid: 1,
      sessionId: '$1',
      sessionCreated: 1,
      sessionName: 'a@crew',
      paneId: '%1',
      panePid: 10,
    };
    const row = s.sessions.insertLive('a@crew', 'claude-code', id, { panePidStart: '5' });
    expect(movePanePid(s, row, 20, '7')).toBe(true);
    expect(s.sessions.live('a@crew')).toMatchObject({
      id: row.id,
      sessionId: '$1',
      paneId: '%1',
      panePid: 20,
      panePidStart: '7',
    });
    expect(movePanePid(s, row, 30, '9')).toBe(false); // row.panePid (10) is no longer current
    s.sessions.end(row.id, 'stopped');
    expect(movePanePid(s, { id: row.id, panePid: 20 }, 30, '9')).toBe(false); // ended rows are history
  });
});

const startOf = (pid: number) => {
  const st = readFileSync(`/proc/${pid}/stat`, 'utf8');
  return st.slice(st.lastIndexOf(')') + 2).split(' ')[19]!;
};
const run = (argv: string[]) =>
  new Promise<{ out: string; ms: number }>((res) => {
    const t0 = Date.now();
    execFile(argv[0]!, argv.slice(1), (_e, out) => res({ out: out.trim(), ms: Date.now() - t0 }));
  });

describe('restart gate', () => {
  it('starts the pane program only once every old process (pid + start time) is gone', async () => {
    const old = spawn('sleep', ['1.5']);
    const r = await run(gateArgv([{ pid: old.pid!, startTime: startOf(old.pid!) }], ['/bin/echo', 'started']));
    expect(r.out).toBe('started');
    expect(r.ms).toBeGreaterThanOrEqual(1200);
  });
  it('a pid now owned by another process (other start time), or already gone, does not hold it', async () => {
    const r = await run(
      gateArgv(
        [
          { pid: process.pid, startTime: '1' },
          { pid: 999_999_999, startTime: '2' },
        ],
        ['/bin/echo', 'started'],
      ),
    );
    expect(r).toMatchObject({ out: 'started' });
    expect(r.ms).toBeLessThan(1000);
  });
});

describe('missing-conversation reports', () => {
  it("count only for the conversation asked about (a fork rolls back on X's report, not its own id)", () => {
    const X = '11111111-2222-3333-4444-555555555555';
    expect(missingReported('claude-code', `No conversation found with session ID: ${X}`, X)).toBe(true);
    expect(
      missingReported('claude-code', 'No conversation found with session ID: 99999999-2222-3333-4444-555555555555', X),
    ).toBe(false);
    expect(missingReported('codex', `ERROR: No saved session found with ID ${X}. Run \`codex resume\``, X)).toBe(true);
    expect(missingReported('pi', `No session found matching '${X}'`, X)).toBe(true);
    expect(exactly(X).accept(X)).toBe(true);
    expect(exactly(X).accept('other')).toBe(false);
  });
});

describe("a claim from the pane's wrapper (Pi rewrites its own command line)", () => {
  const P = '01a22620-817c-75ad-8093-3aef685d6759';
  const proc = (wrapperArgv: string[], agentPpid = 100) => ({
    read: (pid: number) =>
      pid === 100
        ? { pid: 100, ppid: 1, startTime: '7', argv: wrapperArgv }
        : pid === 200
          ? { pid: 200, ppid: agentPpid, startTime: '9', argv: ['pi', '', ''] }
          : undefined,
  });
  // Only the ports the wrapper's claim reads: this machine's process table and files.
  const engine = (wrapperArgv: string[], files: Record<string, string> = {}, agentPpid = 100) =>
    ({
      proc: proc(wrapperArgv, agentPpid),
      io: {
        readFile: (p: string) => {
          if (p in files) return files[p]!;
          throw Object.assign(new Error('ENOENT'), { code: 'ENOENT' });
        },
      },
    }) as unknown as Ports;
  const pane = {
    panePid: 100,
    panePidStart: '7',
    agent: { runtime: 'pi', pid: 200, startTime: '9', argv: ['pi'] },
  } as unknown as RosterPane;
  const wrapped = (...agent: string[]) => ['/bin/sh', '-c', 'WRAPPER', 'rigdesk-seat', ...agent];

  it('names the session given by id, or by a file whose session header names it', () => {
    expect(wrapperClaim(engine(wrapped('/x/pi', '--session', P)), pane, 'pi')).toBe(P);
    const file = `/h/sessions/--w--/2026-11-29T07-06-34-237Z_${P}.jsonl`;
    expect(
      wrapperClaim(
        engine(wrapped('/x/pi', '--session', file), {
          [file]: `${JSON.stringify({ type: 'session', version: 3, id: P })}\n{"type":"model_change"}`,
        }),
        pane,
        'pi',
      ),
    ).toBe(P);
  });
  it("claims nothing without a session argument, for an unreadable or headerless file, or when the agent is not the wrapper's own child", () => {
    expect(wrapperClaim(engine(wrapped('/x/pi')), pane, 'pi')).toBeUndefined();
    expect(wrapperClaim(engine(wrapped('/x/pi', '--session', '/nope.jsonl')), pane, 'pi')).toBeUndefined();
    expect(
      wrapperClaim(engine(wrapped('/x/pi', '--session', '/f.jsonl'), { '/f.jsonl': '{"type":"message"}' }), pane, 'pi'),
    ).toBeUndefined();
    expect(wrapperClaim(engine(wrapped('/x/pi', '--session', P), {}, 555), pane, 'pi')).toBeUndefined();
    expect(wrapperClaim(engine(['/bin/bash', '/x/pi', '--session', P]), pane, 'pi')).toBeUndefined();
  });
});

describe('the restart wait reads the engine clock', () => {
  it('a fake clock ends the wait for a process that outlives it at its deadline, in clock time, without spinning', async () => {
    const w = new RigWorld();
    try {
      let now = 1_000;
      let sleeps = 0;
      const clock = {
        ...systemClock,
        now: () => now,
        sleep: async (ms: number) => {
          sleeps++;
          now += ms;
        },
      };
      const e = w.engine({ clock });
      // This test's own process: alive, with its own start time, for the whole wait.
      const me = e.deps.proc.read(process.pid);
      expect(me).toBeDefined();
      expect(await waitGone(e.ports, e.ownKey, process.pid, me!.startTime, 10_000)).toBe(false);
      // One sleep per 100 ms of clock time: the deadline came from the same clock the sleeps move.
      expect(sleeps).toBeLessThanOrEqual(101);
      expect(now - 1_000).toBeGreaterThanOrEqual(10_000);
    } finally {
      w.cleanup();
    }
  });
});
