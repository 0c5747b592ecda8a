import { spawn, type ChildProcess, type SpawnOptions } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { descendants } from '../../src/main/engine/proc/lineage';
import { linuxProcReader } from '../../src/main/engine/proc/linux';
import type { ProcInfo } from '../../src/main/engine/proc/types';
import { type TestTmux, waitFor } from '../support/tmux';

export { waitFor };

/**
 * Whether this machine has a readable /proc (Linux). Without it the /proc tests skip with the
 * reason locally, and fail under CI, whose machine is Linux: a skip there would hide a broken reader.
 */
export const hasProc = (() => {
  let ok = false;
  try {
    ok = linuxProcReader().read(process.pid) !== undefined;
  } catch {
    ok = false;
  }
  if (ok) return true;
  const why = `no readable /proc here (${process.platform}): the Linux process-table tests need one`;
  if (process.env.CI) throw new Error(`CI must run the /proc tests: ${why}`);
  process.stdout.write(`skipped: /proc tests: ${why}\n`);
  return false;
})();

/**
 * Processes a test started. `cleanup()` kills each one and everything below it, by pid, found from
 * a fresh snapshot (so a bash's children die too). Nothing is killed by name.
 */
export class Procs {
  private roots: ChildProcess[] = [];
  private dirs: string[] = [];
  readonly reader = linuxProcReader();

  spawn(file: string, args: readonly string[] = [], opts: SpawnOptions = {}): ChildProcess & { pid: number } {
    const child = spawn(file, args as string[], { stdio: 'ignore', ...opts });
    child.on('error', () => undefined);
    if (child.pid === undefined) throw new Error(`could not spawn ${file}`);
    this.roots.push(child);
    return child as ChildProcess & { pid: number };
  }

  tmpDir(prefix = 'rdproc-'): string {
    return this.tmpDirIn(tmpdir(), prefix);
  }

  tmpDirIn(parent: string, prefix = 'rdproc-'): string {
    const d = mkdtempSync(join(parent, prefix));
    this.dirs.push(d);
    return d;
  }

  /** Waits until the process shows `comm` (exec finished) and returns its fresh ProcInfo. */
  async until(pid: number, pred: (p: ProcInfo) => boolean, what = `pid ${pid}`): Promise<ProcInfo> {
    return waitFor(
      () => {
        const p = this.reader.read(pid);
        return p && pred(p) ? p : undefined;
      },
      { timeoutMs: 10_000, intervalMs: 20, what },
    );
  }

  cleanup(): void {
    const snap = this.reader.snapshot();
    const pids = new Set<number>();
    for (const c of this.roots) {
      if (c.pid === undefined || c.exitCode !== null || c.signalCode !== null) continue;
      pids.add(c.pid);
      for (const d of descendants(snap, c.pid)) pids.add(d.pid);
    }
    for (const pid of pids) {
      try {
        process.kill(pid, 'SIGKILL');
      } catch {
        /* already gone */
      }
    }
    this.roots = [];
    for (const d of this.dirs) rmSync(d, { recursive: true, force: true });
    this.dirs = [];
  }
}

export function exited(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return Promise.resolve();
  return new Promise((r) => child.once('exit', () => r()));
}

export const sleepMs = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** Kills every process under a test tmux server by pid (background jobs ignore SIGHUP), then the server. */
export function killTmux(tmux: TestTmux): void {
  const server = tmux.serverPid();
  if (server) {
    for (const p of descendants(linuxProcReader().snapshot(), server)) {
      try {
        process.kill(p.pid, 'SIGKILL');
      } catch {
        /* gone */
      }
    }
  }
  tmux.kill();
}
