import { readdirSync, readFileSync } from 'node:fs';

/** CPU time (ms, user + system) per process from /proc, for benches that ask who spent the time. */
export interface CpuSample {
  at: number;
  procs: Map<number, { ppid: number; comm: string; ms: number }>;
}

const TICK_MS = 10; // USER_HZ is 100 on Linux

/**
 * Every process's CPU time. A span's `start` sample reads this process last and its `end` sample
 * first, so the sampler's own reading of /proc (tens of ms with a few hundred processes, and the
 * garbage it leaves) is not counted as this process's work in the span.
 */
export function sampleCpu(edge: 'start' | 'end'): CpuSample {
  const procs: CpuSample['procs'] = new Map();
  const self = () => readStat(process.pid, procs);
  if (edge === 'end') self();
  const at = Date.now();
  for (const d of readdirSync('/proc')) if (/^\d+$/.test(d) && Number(d) !== process.pid) readStat(Number(d), procs);
  if (edge === 'start') self();
  return { at: edge === 'start' ? Date.now() : at, procs };
}

function readStat(pid: number, into: CpuSample['procs']): void {
  let s: string;
  try {
    s = readFileSync(`/proc/${pid}/stat`, 'latin1');
  } catch {
    return;
  }
  const close = s.lastIndexOf(')');
  const comm = s.slice(s.indexOf('(') + 1, close);
  const f = s.slice(close + 2).split(' ');
  // fields after comm: state(0) ppid(1) … utime(11) stime(12)
  into.set(pid, { ppid: Number(f[1]), comm, ms: (Number(f[11]) + Number(f[12])) * TICK_MS });
}

/** Pids of `root` and everything under it in a sample. */
export function treeOf(s: CpuSample, root: number): number[] {
  const out = [root];
  for (let i = 0; i < out.length; i++) for (const [pid, p] of s.procs) if (p.ppid === out[i]) out.push(pid);
  return out.filter((p) => s.procs.has(p));
}

/** CPU ms spent between two samples by the given pids (processes that exited in between count what they had). */
export function cpuBetween(a: CpuSample, b: CpuSample, pids: readonly number[]): number {
  let ms = 0;
  for (const p of pids) ms += (b.procs.get(p)?.ms ?? a.procs.get(p)?.ms ?? 0) - (a.procs.get(p)?.ms ?? 0);
  return ms;
}

/** The `n` processes that spent the most CPU between two samples, as "comm(pid) ms" (RDBENCH_TOP). */
export function topCpu(a: CpuSample, b: CpuSample, n = 10): string {
  return [...b.procs.keys()]
    .map((p) => [p, cpuBetween(a, b, [p])] as const)
    .filter(([, ms]) => ms > 0)
    .sort((x, y) => y[1] - x[1])
    .slice(0, n)
    .map(([p, ms]) => `${b.procs.get(p)!.comm}(${p}) ${ms}`)
    .join(', ');
}
