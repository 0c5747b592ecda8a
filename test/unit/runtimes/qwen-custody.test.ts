/**
 * Custody for Qwen Code: one Qwen is two node processes (the launcher and its relaunched child,
 * both carrying the arguments), and the roster must count them as one agent that owns the
 * conversation its argv names; a Qwen whose argv names no conversation is doubted in its folder
 * and home. Built from a process table as /proc showed it for the real CLI (0.15.10).
 */
import { describe, expect, it } from 'vitest';
import { buildRoster } from '../../../src/main/engine/roster/build';
import { checkConversationFree } from '../../../src/main/engine/custody/guard';
import type { ProcInfo, ProcReader } from '../../../src/main/engine/proc/types';
import { memoryIO, proc } from './helpers';

const C = '11111111-2222-4333-8444-555555555555';
const OTHER = '0e0e0e0e-1111-4222-8333-444455556666';
const BIN = '/p/node_modules/.bin/qwen';
const CWD = '/w/work';
const HOME = '/h/qwen-home';

function reader(
  procs: ProcInfo[],
  env: Record<number, Record<string, string>> = {},
  cwds: Record<number, string> = {},
): ProcReader {
  const byPid = new Map(procs.map((p) => [p.pid, p]));
  const children = new Map<number, number[]>();
  for (const p of procs) children.set(p.ppid, [...(children.get(p.ppid) ?? []), p.pid]);
  return {
    snapshot: () => ({ takenAt: 1, byPid, children }),
    read: (pid) => byPid.get(pid),
    cwd: (pid) => cwds[pid] ?? CWD,
    environ: (pid) => env[pid] ?? { HOME: '/h', QWEN_HOME: HOME },
    locks: () => [],
  };
}

const at = (pid: number, ppid: number, comm: string, argv: string[]) =>
  proc(comm, argv, { pid, ppid, pgid: pid, startTime: String(1000 + pid) });

async function rosterOf(
  procs: ProcInfo[],
  env?: Record<number, Record<string, string>>,
  cwds?: Record<number, string>,
) {
  return buildRoster({
    proc: reader(procs, env, cwds),
    io: memoryIO({}),
    servers: [],
    clientForPath: () => {
      throw new Error('no tmux here');
    },
    keyForPath: () => undefined,
    knownHomes: [{ runtime: 'qwen', home: HOME }],
    uid: 1000,
    selfPid: 1,
    now: () => 1,
  });
}

describe('qwen custody: two node processes, one agent, one owner', () => {
  const seat = [
    at(400, 1, 'sh', ['/bin/sh', '-c', '…', 'rigdesk-seat', BIN, '--session-id', C]),
    at(500, 400, 'node', ['node', BIN, '--session-id', C]),
    at(501, 500, 'node', ['/usr/bin/node', '--max-old-space-size=4096', BIN, '--session-id', C]),
    at(502, 501, 'bash', ['bash', '-c', 'touch x']),
  ];

  it("the launcher and its relaunched child are one qwen agent, named by its argv, in the seat's home", async () => {
    const r = await rosterOf(seat);
    expect(
      r.agents.map((a) => ({ pid: a.pid, runtime: a.runtime, conversationId: a.conversationId, home: a.home })),
    ).toEqual([{ pid: 500, runtime: 'qwen', conversationId: C, home: HOME }]);
    expect(new Set(r.claims.map((c) => c.pid))).toEqual(new Set([500]));
  });

  it("a hand-started `qwen --resume C` beside the seat is an owner of C; the seat's own two processes are not", async () => {
    const hand = [
      at(600, 1, 'node', ['node', BIN, '--resume', C]),
      at(601, 600, 'node', ['/usr/bin/node', BIN, '--resume', C]),
    ];
    const r = await rosterOf([...seat, ...hand]);
    const res = checkConversationFree(r, {
      runtime: 'qwen',
      conversationId: C,
      cwd: CWD,
      home: HOME,
      allowPids: [400, 500, 501, 502],
    });
    expect(res).toMatchObject({ ok: false, code: 'CONVERSATION_LIVE_ELSEWHERE' });
    expect((res.ok ? [] : (res.evidence!.owners as { pid: number }[])).map((o) => o.pid)).toEqual([600]);
    // Without the allowance (a second launch of the seat), both are owners.
    const both = checkConversationFree(r, { runtime: 'qwen', conversationId: C, cwd: CWD, home: HOME });
    expect((both.ok ? [] : (both.evidence!.owners as { pid: number }[])).map((o) => o.pid).sort()).toEqual([500, 600]);
  });

  it('a Qwen whose argv names no conversation (`qwen -c`, a title) in the same folder and home is doubt: CONVERSATION_OWNER_UNKNOWN', async () => {
    for (const args of [[], ['-c'], ['--resume', 'my title']]) {
      const r = await rosterOf([
        at(700, 1, 'node', ['node', BIN, ...args]),
        at(701, 700, 'node', ['/usr/bin/node', BIN, ...args]),
      ]);
      const res = checkConversationFree(r, { runtime: 'qwen', conversationId: C, cwd: CWD, home: HOME });
      expect(res, args.join(' ')).toMatchObject({
        ok: false,
        code: 'CONVERSATION_OWNER_UNKNOWN',
        evidence: { candidates: [{ pid: 700, cwd: CWD, home: HOME }] },
      });
    }
  });

  it('no doubt for a Qwen in another folder, another home, or one that names another conversation', async () => {
    const bare = [at(700, 1, 'node', ['node', BIN]), at(701, 700, 'node', ['/usr/bin/node', BIN])];
    expect(
      checkConversationFree(await rosterOf(bare, {}, { 700: '/w/elsewhere' }), {
        runtime: 'qwen',
        conversationId: C,
        cwd: CWD,
        home: HOME,
      }).ok,
    ).toBe(true);
    expect(
      checkConversationFree(await rosterOf(bare, { 700: { HOME: '/h', QWEN_HOME: '/h/other' } }), {
        runtime: 'qwen',
        conversationId: C,
        cwd: CWD,
        home: HOME,
      }).ok,
    ).toBe(true);
    const named = [at(700, 1, 'node', ['node', BIN, '--session-id', OTHER])];
    expect(
      checkConversationFree(await rosterOf(named), { runtime: 'qwen', conversationId: C, cwd: CWD, home: HOME }).ok,
    ).toBe(true);
  });

  it("without QWEN_HOME the home is ~/.qwen under the process's HOME", async () => {
    const r = await rosterOf([at(800, 1, 'node', ['node', BIN, '--resume', C])], { 800: { HOME: '/home/p' } });
    expect(r.agents[0]?.home).toBe('/home/p/.qwen');
  });
});
