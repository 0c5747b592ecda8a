import { closeSync, readFileSync } from 'node:fs';

/** One process's files kept open between snapshots: stat always, cmdline for user processes. */
export interface HeldFiles {
  stat: number;
  cmdline?: number;
  /** The start time read when they were opened: what tells this process from a later one of its pid. */
  startTime: string;
}

/**
 * /proc/<pid>/stat and cmdline descriptors kept open between process snapshots, for every reader
 * of this process: a 200-seat refresh spent about half its time opening and closing them.
 *
 * Budget: at most a quarter of the soft open-file limit and never more than 4096 descriptors (about
 * 2,000 processes at two each), so the engine's own files, sockets and pipes always have room;
 * past it, a process is read with open/read/close as before. Entries of processes gone from /proc
 * are closed at the next snapshot.
 */
export class HeldProcFiles {
  private readonly byPid = new Map<number, HeldFiles>();
  private count = 0;
  constructor(readonly budget: number) {}

  get(pid: number): HeldFiles | undefined {
    return this.byPid.get(pid);
  }

  /** Room for one more process's two descriptors. */
  room(): boolean {
    return this.count + 2 <= this.budget;
  }

  set(pid: number, files: HeldFiles): void {
    this.drop(pid);
    this.byPid.set(pid, files);
    this.count += files.cmdline === undefined ? 1 : 2;
  }

  drop(pid: number): void {
    const f = this.byPid.get(pid);
    if (!f) return;
    this.byPid.delete(pid);
    for (const fd of [f.stat, f.cmdline]) {
      if (fd === undefined) continue;
      this.count -= 1;
      try {
        closeSync(fd);
      } catch {
        /* already closed */
      }
    }
  }

  /** Closes what is held for processes not in `pids` (gone from /proc). */
  keepOnly(pids: ReadonlySet<number>): void {
    for (const pid of [...this.byPid.keys()]) if (!pids.has(pid)) this.drop(pid);
  }

  /** Descriptors held now (tests and benches). */
  get held(): number {
    return this.count;
  }
}

/** The soft limit on open files (RLIMIT_NOFILE), from /proc/self/limits; 1024 when unreadable. */
export function softOpenFileLimit(): number {
  try {
    const line = readFileSync('/proc/self/limits', 'utf8')
      .split('\n')
      .find((l) => l.startsWith('Max open files'));
    const soft = line?.slice('Max open files'.length).trim().split(/\s+/)[0];
    return soft === 'unlimited' ? 1 << 20 : Number(soft) > 0 ? Number(soft) : 1024;
  } catch {
    return 1024;
  }
}

export const HELD_BUDGET_CAP = 4096;

/** Shared by every reader of /proc in this process, so readers made per engine never add up. */
export const HELD = new HeldProcFiles(Math.min(HELD_BUDGET_CAP, Math.floor(softOpenFileLimit() / 4)));
