import { describe, expect, it } from 'vitest';
import type { FileLock, ProcReader } from '../../../src/main/engine/proc/types';
import { LocksAhead } from '../../../src/main/engine/roster/locks';

/**
 * When a roster reads the held locks (roster/locks.ts): off the event loop, early only when the
 * last refresh needed them. Real /proc/locks against a real flock: test/engine/roster.test.ts.
 */
function reader(): ProcReader & { reads: number; syncReads: number } {
  const lock: FileLock = { kind: 'FLOCK', mode: 'WRITE', pid: 42, devMajor: 8, devMinor: 1, inode: 7 };
  const r = {
    reads: 0,
    syncReads: 0,
    snapshot: () => ({ takenAt: 0, byPid: new Map(), children: new Map() }),
    read: () => undefined,
    cwd: () => undefined,
    environ: () => undefined,
    locks: () => (r.syncReads++, [lock]),
    locksAsync: async () => (r.reads++, [lock]),
  };
  return r;
}

describe('the held locks, for a roster', () => {
  it('read off the event loop, only when wanted, and early only after a refresh that wanted them', async () => {
    const proc = reader();
    const ahead = new LocksAhead();
    expect(ahead.early(proc)).toBeUndefined();
    expect(await ahead.need(false, proc, undefined)).toEqual({ locks: [] });
    expect(proc.reads).toBe(0);
    expect(await ahead.need(true, proc, ahead.early(proc))).toEqual({ locks: [expect.objectContaining({ pid: 42 })] });
    expect(proc.reads).toBe(1);
    // Wanted last time: the next refresh starts the read before its process table, and uses it.
    const early = ahead.early(proc);
    expect(early).toBeDefined();
    expect(proc.reads).toBe(2);
    expect(await ahead.need(true, proc, early)).toEqual({ locks: [expect.objectContaining({ pid: 42 })] });
    expect(proc.reads).toBe(2);
    // Not wanted this time: what was read early is not used, and the next refresh reads none early.
    expect(await ahead.need(false, proc, ahead.early(proc))).toEqual({ locks: [] });
    expect(ahead.early(proc)).toBeUndefined();
    expect(proc.syncReads).toBe(0);
  });

  it('a reader with no asynchronous read (ps, a host) is read as before; one that fails is a problem, not a throw', async () => {
    const proc = { ...reader(), locksAsync: undefined };
    const ahead = new LocksAhead();
    expect(await ahead.need(true, proc, undefined)).toEqual({ locks: [expect.objectContaining({ pid: 42 })] });
    const failing = {
      ...reader(),
      locksAsync: () => Promise.reject(new Error('EACCES: /proc/locks')),
    };
    expect(await ahead.need(true, failing, undefined)).toEqual({ error: 'EACCES: /proc/locks' });
  });
});
