import { AGENT_RUNTIMES, type EvidenceIO } from '../runtimes';
import type { FileLock, ProcReader } from '../proc/types';

/** A runtime's config home whose live state a roster reads. */
export interface ClaimHome {
  runtime: string;
  home: string;
}

/** The homes whose live state is read: the known ones, and those of the agents found running. */
export function claimHomes(
  known: readonly ClaimHome[],
  found: Iterable<{ runtime: string; home?: string }>,
): Map<string, ClaimHome> {
  const homes = new Map<string, ClaimHome>();
  for (const h of known) homes.set(`${h.runtime}\0${h.home}`, h);
  for (const a of found) if (a.home) homes.set(`${a.runtime}\0${a.home}`, { runtime: a.runtime, home: a.home });
  return homes;
}

/** Whether a home has writer locks to match against the held locks (an unreadable one counts). */
export function wantsLocks(homes: Iterable<ClaimHome>, io: EvidenceIO): boolean {
  return [...homes].some(({ runtime, home }) => {
    try {
      return AGENT_RUNTIMES.find((r) => r.id === runtime)?.needsLocks?.(home, io) ?? false;
    } catch {
      return true; // unreadable: let liveClaims report it, with the locks in hand
    }
  });
}

/**
 * The held file locks, read off the event loop and, when the last refresh needed them, started
 * before the process table is read, so the wait overlaps it. Linux writes /proc/locks out only
 * after an RCU grace period: after a quiet spell of some tens of ms a read waits 7-20 ms (measured
 * on 6.x kernels), and a synchronous read held the whole engine for that long on every refresh
 * that matched Codex writer locks. Only a refresh that needs them reads them; a lock taken while
 * the table is read is one taken just after the look, as it always could be.
 */
export class LocksAhead {
  private wanted = false;

  /** Starts the read now if the last refresh needed the locks. */
  early(proc: ProcReader): Promise<LockRead> | undefined {
    return this.wanted ? readLocks(proc) : undefined;
  }

  /** This refresh's need: the read started early, or one started now, or none. */
  need(wanted: boolean, proc: ProcReader, early: Promise<LockRead> | undefined): Promise<LockRead> {
    this.wanted = wanted;
    return need(wanted, proc, early);
  }
}

export type LockRead = { locks: FileLock[] } | { error: string };

export function need(wanted: boolean, proc: ProcReader, early?: Promise<LockRead>): Promise<LockRead> {
  if (!wanted) return Promise.resolve({ locks: [] });
  return early ?? readLocks(proc);
}

function readLocks(proc: ProcReader): Promise<LockRead> {
  try {
    const read = proc.locksAsync ? proc.locksAsync() : Promise.resolve(proc.locks());
    return read.then(
      (locks) => ({ locks }),
      (e: unknown) => ({ error: (e as Error).message }),
    );
  } catch (e) {
    return Promise.resolve({ error: (e as Error).message });
  }
}
