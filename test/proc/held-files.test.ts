import { describe, expect, it, afterEach } from 'vitest';
import { HeldProcFiles } from '../../src/main/engine/proc/held';
import { linuxProcReader } from '../../src/main/engine/proc/linux';
import { exited, hasProc, Procs } from './helpers';

const procs = new Procs();
afterEach(() => procs.cleanup());

/** The table as it matters for a roster: pid -> start time, argv and uid. */
const view = (snap: ReturnType<ReturnType<typeof linuxProcReader>['snapshot']>, pids: number[]) =>
  pids.map((pid) => {
    const p = snap.byPid.get(pid);
    return p && { pid, startTime: p.startTime, argv: p.argv, uid: p.uid };
  });

describe.runIf(hasProc)('process snapshots with /proc files held open between them', () => {
  it('reads what an open/read/close snapshot reads, and sees an exec, an exit and a new process', async () => {
    const held = new HeldProcFiles(4096);
    const reader = linuxProcReader({ held });
    const plain = linuxProcReader({ held: false });
    const a = procs.spawn('bash', ['-c', 'read -r _; exec sleep 31'], { stdio: ['pipe', 'ignore', 'ignore'] });
    const b = procs.spawn('sleep', ['30']);
    await procs.until(b.pid, (p) => p.comm === 'sleep');
    await procs.until(a.pid, (p) => p.comm === 'bash');
    reader.snapshot();
    expect(held.held).toBeGreaterThan(2);
    const second = reader.snapshot();
    expect(view(second, [a.pid, b.pid])).toEqual(view(plain.snapshot(), [a.pid, b.pid]));
    // An exec through a held cmdline: the new argv, same pid and start time.
    a.stdin!.end('go\n');
    await procs.until(a.pid, (p) => p.argv[0] === 'sleep');
    expect(reader.snapshot().byPid.get(a.pid)!.argv).toEqual(['sleep', '31']);
    // An exit: gone from the table, its descriptors closed at that snapshot (other tests' processes
    // come and go meanwhile, so the count of held files says nothing by itself).
    expect(held.get(b.pid)).toBeDefined();
    b.kill('SIGKILL');
    await exited(b);
    const after = reader.snapshot();
    expect(after.byPid.has(b.pid)).toBe(false);
    expect(held.get(b.pid)).toBeUndefined();
    const c = procs.spawn('sleep', ['32']);
    await procs.until(c.pid, (p) => p.comm === 'sleep');
    expect(reader.snapshot().byPid.get(c.pid)!.argv).toEqual(['sleep', '32']);
  });

  it('never holds more than its budget, and reads the rest with open/read/close', async () => {
    const held = new HeldProcFiles(6);
    const reader = linuxProcReader({ held });
    const kids = [procs.spawn('sleep', ['30']), procs.spawn('sleep', ['30']), procs.spawn('sleep', ['30'])];
    for (const k of kids) await procs.until(k.pid, (p) => p.comm === 'sleep');
    const first = reader.snapshot();
    const second = reader.snapshot();
    expect(held.held).toBeLessThanOrEqual(6);
    expect(held.held).toBeGreaterThan(0);
    for (const k of kids) expect(second.byPid.get(k.pid)?.argv).toEqual(['sleep', '30']);
    expect(second.byPid.size).toBeGreaterThan(3);
    expect(Math.abs(second.byPid.size - first.byPid.size)).toBeLessThan(50);
  });
});
