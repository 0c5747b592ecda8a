/**
 * One read of the process table. On Linux it comes from /proc without spawning anything; elsewhere
 * from a single `ps`. Fields that cost an extra read per process (cwd, environ) are fetched lazily
 * and only for the few processes that look like agents.
 */

export interface ProcInfo {
  pid: number;
  ppid: number;
  pgid: number;
  sid: number;
  /** Foreground process group of the controlling terminal; -1 when there is none. */
  tpgid: number;
  /** Controlling tty device number (0 when none). */
  ttyNr: number;
  /**
   * Start time as an opaque, stable string (clock ticks since boot on Linux, `lstart` elsewhere).
   * pid + startTime is a process identity: a reused pid has a different start time.
   */
  startTime: string;
  /** Kernel short name (`/proc/<pid>/comm`), at most 15 characters. */
  comm: string;
  /** Arguments as the process presents them now (programs may rewrite them, as Pi does). */
  argv: string[];
  uid: number;
}

/** A lock from /proc/locks (flock or POSIX), identified by the locked file's device and inode. */
export interface FileLock {
  kind: 'FLOCK' | 'POSIX' | 'OFDLCK' | string;
  mode: 'READ' | 'WRITE' | string;
  pid: number;
  /** "major:minor" of the device, as hex in /proc/locks, normalised to decimal numbers here. */
  devMajor: number;
  devMinor: number;
  inode: number;
}

export interface ProcSnapshot {
  takenAt: number;
  byPid: Map<number, ProcInfo>;
  /** pid -> direct children pids, for lineage walks. */
  children: Map<number, number[]>;
}

export interface ProcReader {
  /** One read of the whole table. Never throws for a process that vanished mid-read. */
  snapshot(): ProcSnapshot;
  /** One process, read fresh (revalidation just before a write). Undefined when it is gone. */
  read(pid: number): ProcInfo | undefined;
  /** Working directory; undefined when gone; throws with code EACCES when unreadable. */
  cwd(pid: number): string | undefined;
  /** Environment; undefined when gone; throws with code EACCES when unreadable. */
  environ(pid: number): Record<string, string> | undefined;
  /** Held file locks (Linux /proc/locks); empty elsewhere. */
  locks(): FileLock[];
  /**
   * The same, read off the event loop: on Linux the kernel writes /proc/locks out only after an
   * RCU grace period, milliseconds of waiting after a quiet spell (see roster/locks.ts).
   */
  locksAsync?(): Promise<FileLock[]>;
}

/**
 * The same table read where only an asynchronous source exists (`ps` on macOS and other non-Linux
 * systems): one spawn per snapshot. cwd/environ/locks are not offered; callers fall back to
 * "unknown" for those there.
 */
export interface AsyncProcReader {
  /** One spawn of `ps` for the whole table. Rejects only when `ps` itself cannot run or its output is unusable. */
  snapshotAsync(): Promise<ProcSnapshot>;
  /** One process, read fresh (one `ps` spawn of the whole table, which keeps comm/args parsing unambiguous). Undefined when it is gone. */
  readAsync(pid: number): Promise<ProcInfo | undefined>;
}
