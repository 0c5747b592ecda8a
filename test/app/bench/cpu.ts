import { readdirSync, readFileSync } from 'node:fs';

/** CPU time (ms, user + system) per process from /proc, for benches that ask who spent the time. */
export interface CpuSample {
  at: number;
  procs: Map<number, { ppid: number; comm: string; ms: number }>;
}

const TICK_MS = 10; // USER_HZ is 100 on Linux

export function sampleCpu(): CpuSample {
  const procs: CpuSample['procs'] = new Map();
  for (const d of readdirSync('/proc')) {
    if (!/^\d+$/.test(d)) continue;
    let s: string;
    try {
      s = readFileSync(`/proc/${d}/stat`, 'latin1');
    } catch {
      continue;
    }
    const close = s.lastIndexOf(')');
    const comm = s.slice(s.indexOf('(') + 1, close);
    const f = s.slice(close + 2).split(' ');
    // fields after comm: state(0) ppid(1) … utime(11) stime(12)
    procs.set(Number(d), { ppid: Number(f[1]), comm, ms: (Number(f[11]) + Number(f[12])) * TICK_MS });
  }
  return { at: Date.now(), procs };
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
