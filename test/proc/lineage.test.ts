import { spawnSync } from 'node:child_process';
import { afterEach, describe, expect, it } from 'vitest';
import {
  ancestors,
  buildSnapshot,
  compareStartTime,
  descendants,
  foregroundOf,
  sameProcess,
} from '../../src/main/engine/proc/lineage';
import { linuxProcReader } from '../../src/main/engine/proc/linux';
import type { ProcInfo } from '../../src/main/engine/proc/types';
import { TestTmux } from '../support/tmux';
import { hasProc, killTmux, Procs, waitFor } from './helpers';

const procs = new Procs();
afterEach(() => procs.cleanup());

const hasTmux = spawnSync('tmux', ['-V']).status === 0;

function P(pid: number, ppid: number, extra: Partial<ProcInfo> = {}): ProcInfo {
  return {
    pid,
    ppid,
    pgid: pid,
    sid: 1,
    tpgid: -1,
    ttyNr: 0,
    startTime: String(pid),
    comm: `p${pid}`,
    argv: [],
    uid: 0,
    ...extra,
  };
}

describe.runIf(hasProc)('lineage on real process trees', () => {
  const reader = linuxProcReader();

  it('descendants are breadth-first and include grandchildren; ancestors climb back to us', async () => {
    // bash ─┬─ sleep 31
    //       └─ bash ─── sleep 32      (the subshell's own child is a grandchild)
    const root = procs.spawn('bash', ['-c', 'sleep 31 & (sleep 32; true) & wait']);
    const snap = await waitFor(
      () => {
        const s = reader.snapshot();
        const argvs = descendants(s, root.pid).map((p) => p.argv.join(' '));
        return argvs.includes('sleep 31') && argvs.includes('sleep 32') ? s : undefined;
      },
      { what: 'the tree', intervalMs: 20 },
    );
    const desc = descendants(snap, root.pid);
    expect(desc).toHaveLength(3);
    const s31 = desc.find((p) => p.argv.join(' ') === 'sleep 31')!;
    const s32 = desc.find((p) => p.argv.join(' ') === 'sleep 32')!;
    const sub = desc.find((p) => p.comm === 'bash')!;
    expect(s31.ppid).toBe(root.pid);
    expect(sub.ppid).toBe(root.pid);
    expect(s32.ppid).toBe(sub.pid);
    expect(desc.indexOf(s32)).toBe(2); // the grandchild comes after both children
    expect(
      ancestors(snap, s32.pid)
        .slice(0, 3)
        .map((p) => p.pid),
    ).toEqual([sub.pid, root.pid, process.pid]);
    expect(ancestors(snap, s32.pid).at(-1)!.ppid).toBe(0); // up to the root of the table
    expect(descendants(snap, s32.pid)).toEqual([]);
    expect(descendants(snap, process.pid).map((p) => p.pid)).toEqual(
      expect.arrayContaining([root.pid, s31.pid, sub.pid, s32.pid]),
    );
  });

  it('sameProcess: same pid and start time; a later process never matches an earlier one', async () => {
    const a = procs.spawn('sleep', ['30']);
    const pa = await procs.until(a.pid, (q) => q.comm === 'sleep');
    expect(sameProcess(pa, reader.read(a.pid)!)).toBe(true);
    expect(sameProcess(pa, { pid: a.pid, startTime: String(BigInt(pa.startTime) + 1n) })).toBe(false);
    expect(sameProcess(pa, { pid: a.pid + 1, startTime: pa.startTime })).toBe(false);
  });

  it.runIf(hasTmux)(
    'foregroundOf a tmux pane: the deepest process of the foreground group, not a deeper background job',
    async () => {
      const tmux = new TestTmux('rdproc');
      try {
        const { panePid, paneId } = tmux.newSession('fg', ['bash', '--norc', '--noprofile', '-i']);
        // the shell alone: it is its own foreground
        const shell = await procs.until(panePid, (q) => q.comm === 'bash' && q.tpgid === q.pgid, 'interactive shell');
        expect(foregroundOf(reader.snapshot(), panePid)?.pid).toBe(panePid);
        expect(shell.ttyNr).not.toBe(0);
        expect(shell.sid).toBe(panePid);

        // a background job three levels deep, then a foreground job two levels deep
        tmux.run(['send-keys', '-t', paneId, 'bash -c \'bash -c "sleep 301; true"; true\' &', 'Enter']);
        tmux.run(['send-keys', '-t', paneId, "bash -c 'sleep 300; true'", 'Enter']);
        const snap = await waitFor(
          () => {
            const s = reader.snapshot();
            const argvs = descendants(s, panePid).map((p) => p.argv.join(' '));
            return argvs.includes('sleep 300') && argvs.includes('sleep 301') ? s : undefined;
          },
          { what: 'both jobs', intervalMs: 50 },
        );
        const fgSleep = descendants(snap, panePid).find((p) => p.argv.join(' ') === 'sleep 300')!;
        const bgSleep = descendants(snap, panePid).find((p) => p.argv.join(' ') === 'sleep 301')!;
        expect(snap.byPid.get(panePid)!.tpgid).toBe(fgSleep.pgid);
        expect(bgSleep.pgid).not.toBe(fgSleep.pgid);
        expect(ancestors(snap, bgSleep.pid).length).toBeGreaterThan(ancestors(snap, fgSleep.pid).length); // the background one IS deeper
        const fg = foregroundOf(snap, panePid)!;
        expect(fg.pid).toBe(fgSleep.pid);
        expect(fg.ttyNr).toBe(snap.byPid.get(panePid)!.ttyNr);
        expect(foregroundOf(snap, 999_999_999)).toBeUndefined();
      } finally {
        killTmux(tmux);
      }
    },
  );
});

describe('lineage on synthetic tables', () => {
  it('walks are cycle-safe', () => {
    // 2 -> 3 -> 4 -> 2 (a corrupt or racing table)
    const snap = buildSnapshot([P(1, 0), P(2, 4), P(3, 2), P(4, 3), P(5, 5)], 0);
    expect(descendants(snap, 2).map((p) => p.pid)).toEqual([3, 4]);
    expect(ancestors(snap, 2).map((p) => p.pid)).toEqual([4, 3]);
    expect(ancestors(snap, 5)).toEqual([]);
    expect(descendants(snap, 5)).toEqual([]);
    expect(foregroundOf(snap, 2)?.pid).toBe(4);
    expect(ancestors(snap, 42)).toEqual([]);
    expect(descendants(snap, 42)).toEqual([]);
  });

  it('foregroundOf: newest among equally deep foreground members; falls back to deepest descendant', () => {
    const tty = { ttyNr: 34816, sid: 10 };
    const fgGroup = 20;
    const snap = buildSnapshot(
      [
        P(10, 1, { ...tty, pgid: 10, tpgid: fgGroup }),
        P(20, 10, { ...tty, pgid: 20, tpgid: fgGroup, startTime: '500' }), // pipeline: a | b
        P(21, 10, { ...tty, pgid: 20, tpgid: fgGroup, startTime: '501' }),
        P(30, 10, { ...tty, pgid: 30, tpgid: fgGroup, startTime: '400' }), // background job, deeper
        P(31, 30, { ...tty, pgid: 30, tpgid: fgGroup, startTime: '401' }),
      ],
      0,
    );
    expect(foregroundOf(snap, 10)?.pid).toBe(21);
    // tty without any member of the foreground group in the tree: the deepest descendant
    const noFg = buildSnapshot(
      [P(10, 1, { tpgid: 99 }), P(11, 10), P(12, 11, { startTime: '1' }), P(13, 11, { startTime: '2' })],
      0,
    );
    expect(foregroundOf(noFg, 10)?.pid).toBe(13);
    expect(foregroundOf(buildSnapshot([P(10, 1)], 0), 10)?.pid).toBe(10);
  });

  it('compareStartTime orders tick counts numerically and lstart strings by date', () => {
    expect(compareStartTime('99', '100')).toBeLessThan(0);
    expect(compareStartTime('18446744073709551615', '18446744073709551614')).toBeGreaterThan(0);
    expect(compareStartTime('Sun Nov 29 08:16:45 2026', 'Sun Nov 29 08:16:44 2026')).toBeGreaterThan(0);
    expect(compareStartTime('x', '1')).toBe(0);
  });
});
