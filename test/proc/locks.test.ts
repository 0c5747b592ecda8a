import { spawnSync } from 'node:child_process';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { descendants } from '../../src/main/engine/proc/lineage';
import { deviceOf, linuxProcReader } from '../../src/main/engine/proc/linux';
import { hasProc, Procs, waitFor } from './helpers';

const procs = new Procs();
afterEach(() => procs.cleanup());

const hasFlock = spawnSync('flock', ['--version']).status === 0;
const hasPython = spawnSync('python3', ['-c', 'import fcntl']).status === 0;

describe.runIf(hasProc)('locks() against real locks', () => {
  const reader = linuxProcReader();

  // /tmp (here ext4, major 254) and /dev/shm (tmpfs: anonymous device, major 0, minor > 0)
  const dirs = ['tmp', ...(existsSync('/dev/shm') ? ['shm'] : [])];

  it.runIf(hasFlock).each(dirs)(
    'sees an flock held by a child (util-linux flock) with device/inode matching deviceOf [%s]',
    async (where) => {
      const dir = where === 'shm' ? procs.tmpDirIn('/dev/shm') : procs.tmpDir();
      const file = join(dir, 'held.lock');
      writeFileSync(file, '');
      const holder = procs.spawn('flock', ['-x', file, 'sleep', '30']);
      const id = deviceOf(file);
      const lock = await waitFor(
        () =>
          reader.locks().find((l) => l.inode === id.inode && l.devMajor === id.devMajor && l.devMinor === id.devMinor),
        {
          what: 'the flock in /proc/locks',
          intervalMs: 20,
        },
      );
      expect(lock).toEqual({ kind: 'FLOCK', mode: 'WRITE', pid: holder.pid, ...id });

      // a second flock on the same file blocks: the waiter ("-> FLOCK") is not reported as a holder
      const waiter = procs.spawn('flock', ['-x', file, 'true']);
      await waitFor(
        () =>
          readFileSync('/proc/locks', 'utf8')
            .split('\n')
            .some((l) => l.includes('->') && l.includes(` ${waiter.pid} `)),
        {
          what: 'the blocked waiter line',
          intervalMs: 20,
        },
      );
      const holders = reader
        .locks()
        .filter((l) => l.inode === id.inode && l.devMajor === id.devMajor && l.devMinor === id.devMinor);
      expect(holders.map((l) => l.pid)).toEqual([holder.pid]);
      expect(holders.some((l) => l.pid === waiter.pid)).toBe(false);
    },
  );

  it.runIf(hasPython)('sees a POSIX read lock (python3 fcntl.lockf) with device/inode matching deviceOf', async () => {
    const dir = procs.tmpDir();
    const file = join(dir, 'posix.lock');
    writeFileSync(file, 'x');
    const py = procs.spawn('python3', [
      '-c',
      `import fcntl,time\nf=open(${JSON.stringify(file)},'r')\nfcntl.lockf(f, fcntl.LOCK_SH)\ntime.sleep(30)`,
    ]);
    const id = deviceOf(file);
    const lock = await waitFor(() => reader.locks().find((l) => l.inode === id.inode), {
      what: 'the POSIX lock',
      intervalMs: 50,
    });
    expect(lock.kind).toBe('POSIX');
    expect(lock.mode).toBe('READ');
    expect({ devMajor: lock.devMajor, devMinor: lock.devMinor }).toEqual({
      devMajor: id.devMajor,
      devMinor: id.devMinor,
    });
    // python3 may be a shim that execs the real interpreter: the holder is the spawned pid or below it
    const tree = [py.pid, ...descendants(reader.snapshot(), py.pid).map((p) => p.pid)];
    expect(tree).toContain(lock.pid);
  });
});
