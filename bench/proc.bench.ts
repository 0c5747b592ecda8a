import { mkdirSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import { join, resolve } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { liveExec } from '../src/main/engine/deps';
import { descendants } from '../src/main/engine/proc/lineage';
import { linuxProcReader } from '../src/main/engine/proc/linux';
import { psProcReader } from '../src/main/engine/proc/ps';
import { hasProc, Procs, waitFor } from '../test/proc/helpers';

const procs = new Procs();
afterEach(() => procs.cleanup());

/** Microbenchmark, printed, never asserted: timings depend on the machine and its neighbours. */
function timeIt(fn: () => unknown, runs: number): { median: number; p95: number; min: number } {
  for (let i = 0; i < 5; i++) fn(); // warm-up (JIT, dentry cache)
  const t: number[] = [];
  for (let i = 0; i < runs; i++) {
    const s = process.hrtime.bigint();
    fn();
    t.push(Number(process.hrtime.bigint() - s) / 1e6);
  }
  t.sort((a, b) => a - b);
  return { median: t[Math.floor(runs / 2)]!, p95: t[Math.floor(runs * 0.95)]!, min: t[0]! };
}

const fmt = (r: { median: number; p95: number; min: number }) =>
  `median ${r.median.toFixed(2)} ms, p95 ${r.p95.toFixed(2)} ms, min ${r.min.toFixed(2)} ms`;

/**
 * The process table read (`npm run bench:proc`): linux snapshot() on this machine as it is, then
 * topped up to RIGDESK_PROC_BENCH_N processes (default 1000) with `sleep`s, and one `ps` spawn for
 * contrast. Printed and written to bench/results with the machine and date.
 */
const target = Number(process.env.RIGDESK_PROC_BENCH_N ?? 1000);

describe.runIf(hasProc)('snapshot() of the process table (printed and written, not a speed assertion)', () => {
  it('times snapshot() on this machine as it is (and topped up to RIGDESK_PROC_BENCH_N processes)', async () => {
    const reader = linuxProcReader();
    const base = reader.snapshot().byPid.size;
    const r0 = timeIt(() => reader.snapshot(), 100);
    console.log(`[proc bench] linux snapshot(), ${base} processes: ${fmt(r0)}`);

    const extra = Math.max(0, target - base);
    const figures: Record<string, unknown> = {
      date: new Date().toISOString(),
      machine: { cpu: os.cpus()[0]?.model, cores: os.cpus().length, node: process.version, load: os.loadavg() },
      asIs: { processes: base, ...r0 },
    };
    const write = () => {
      const dir = resolve(__dirname, 'results');
      mkdirSync(dir, { recursive: true });
      writeFileSync(
        join(dir, `proc-${String(figures.date).replace(/[:.]/g, '-').slice(0, 19)}Z.json`),
        `${JSON.stringify(figures, null, 2)}\n`,
      );
    };
    if (extra === 0) return write();
    const farm = procs.spawn('bash', ['-c', `for i in $(seq ${extra}); do sleep 120 & done; wait`], { detached: true });
    await waitFor(
      () => descendants(reader.snapshot(), farm.pid).filter((p) => p.comm === 'sleep').length >= extra || undefined,
      {
        what: `${extra} sleeps`,
        timeoutMs: 60_000,
        intervalMs: 100,
      },
    );
    await new Promise((r) => setTimeout(r, 1000)); // let the farm settle (forks done, bash waiting)
    const n = reader.snapshot().byPid.size;
    const r1 = timeIt(() => reader.snapshot(), 100);
    console.log(
      `[proc bench] linux snapshot(), ${n} processes: ${fmt(r1)} (${((r1.median / n) * 1000).toFixed(1)} µs/process)`,
    );

    // The files held open between snapshots (proc/held.ts) against open/read/close, alternating.
    const plain = linuxProcReader({ held: false });
    const pair = { held: [] as number[], plain: [] as number[] };
    for (let i = 0; i < 105; i++)
      for (const [k, r] of [
        ['held', reader],
        ['plain', plain],
      ] as const) {
        const s = process.hrtime.bigint();
        r.snapshot();
        if (i >= 5) pair[k].push(Number(process.hrtime.bigint() - s) / 1e6);
      }
    const med = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;
    console.log(
      `[proc bench] ${n} processes, alternating: files held ${med(pair.held).toFixed(2)} ms, open/read/close ${med(pair.plain).toFixed(2)} ms (medians)`,
    );

    const ps = psProcReader(liveExec);
    const t: number[] = [];
    for (let i = 0; i < 5; i++) {
      const s = performance.now();
      await ps.snapshotAsync();
      t.push(performance.now() - s);
    }
    t.sort((a, b) => a - b);
    console.log(`[proc bench] ps snapshotAsync() (one spawn), ${n} processes: median ${t[2]!.toFixed(1)} ms`);
    figures.toppedUp = {
      processes: n,
      ...r1,
      usPerProcess: +((r1.median / n) * 1000).toFixed(1),
      heldMedianMs: +med(pair.held).toFixed(2),
      openReadCloseMedianMs: +med(pair.plain).toFixed(2),
      psSpawnMedianMs: +t[2]!.toFixed(1),
    };
    // Written first: a table that fell short of the target (processes counted at the start that
    // ended meanwhile) still has its figures.
    write();
    expect(n).toBeGreaterThanOrEqual(target);
  });
});
