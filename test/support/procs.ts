import { readFileSync } from 'node:fs';
import { descendants, liveProcReader } from '../../src/main/engine/proc';

/** A process as the exit tests name it: pid and start time (a reused pid is another process). */
export interface ProcId {
  pid: number;
  startTime: string;
  argv: string[];
}

/** Every process below `pid` now (children, grandchildren, ...), from one walk of /proc. */
export function descendantsOf(pid: number): ProcId[] {
  return descendants(liveProcReader().snapshot(), pid).map((p) => ({
    pid: p.pid,
    startTime: p.startTime,
    argv: p.argv,
  }));
}

/** Whether that very process still runs (a zombie nobody reaps has ended). */
export function stillRuns(p: ProcId): boolean {
  let stat: string;
  try {
    stat = readFileSync(`/proc/${p.pid}/stat`, 'utf8');
  } catch {
    return false;
  }
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  return fields[0] !== 'Z' && fields[0] !== 'X' && fields[19] === p.startTime;
}

/** Every running process with `text` in one of its arguments (a tmux socket's name), but this one. */
export function procsNaming(text: string): ProcId[] {
  const snap = liveProcReader().snapshot();
  return [...snap.byPid.values()]
    .filter((p) => p.pid !== process.pid && p.argv.some((a) => a.includes(text)))
    .map((p) => ({ pid: p.pid, startTime: p.startTime, argv: p.argv }))
    .filter(stillRuns);
}

/** Ends the given processes by their pids (SIGKILL ends a stopped process too). */
export function killByPid(list: readonly ProcId[]): void {
  for (const p of list) {
    if (!stillRuns(p)) continue;
    try {
      process.kill(p.pid, 'SIGKILL');
    } catch {
      /* gone meanwhile */
    }
  }
}

/** Waits until none of the processes runs, up to `ms`; the ones still running. */
export async function waitAllGone(list: readonly ProcId[], ms: number): Promise<ProcId[]> {
  const until = Date.now() + ms;
  for (;;) {
    const left = list.filter(stillRuns);
    if (left.length === 0 || Date.now() > until) return left;
    await new Promise((r) => setTimeout(r, 50));
  }
}

/** One line per process, for a failure message. */
export function describeProcs(list: readonly ProcId[]): string {
  return list.map((p) => `${p.pid}: ${p.argv.join(' ').slice(0, 160)}`).join('\n');
}
