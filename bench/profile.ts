import { writeFileSync } from 'node:fs';
import { Session } from 'node:inspector';
import os from 'node:os';
import { basename, join } from 'node:path';
import { performance } from 'node:perf_hooks';

interface CpuProfile {
  nodes: { id: number; callFrame: { functionName: string; url: string; lineNumber: number } }[];
  samples: number[];
  timeDeltas: number[];
}

/**
 * Runs `work` under node's CPU profiler (RDBENCH_PROFILE=1 in the benches that offer it): the
 * profile goes to the system's temp folder and the functions with the most self time are printed,
 * per `per` (a refresh, a seat). The profiler's own stop is left out of the table.
 */
export async function profiled(name: string, per: number, work: () => Promise<void>): Promise<void> {
  const session = new Session();
  session.connect();
  const post = (method: string, params?: object) =>
    new Promise<unknown>((ok, bad) => session.post(method, params ?? {}, (e, r) => (e ? bad(e) : ok(r))));
  await post('Profiler.enable');
  await post('Profiler.setSamplingInterval', { interval: 100 });
  await post('Profiler.start');
  const t0 = performance.now();
  await work();
  const wallMs = performance.now() - t0;
  const { profile } = (await post('Profiler.stop')) as { profile: CpuProfile };
  session.disconnect();
  const file = join(os.tmpdir(), `${name}-${process.pid}.cpuprofile`);
  writeFileSync(file, JSON.stringify(profile));
  const dt = new Map<number, number>();
  profile.samples.forEach((id, i) => {
    dt.set(id, (dt.get(id) ?? 0) + (profile.timeDeltas[i] ?? 0));
  });
  const self = new Map<string, number>();
  for (const node of profile.nodes) {
    const f = node.callFrame;
    if (f.functionName === 'dispatch' && f.url === '') continue; // the profiler's own stop
    const key = `${f.functionName || '(anonymous)'} ${basename(f.url)}:${f.lineNumber + 1}`;
    self.set(key, (self.get(key) ?? 0) + (dt.get(node.id) ?? 0) / 1000);
  }
  const top = [...self].sort((a, b) => b[1] - a[1]).slice(0, 15);
  const fmt = (ms: number) => (ms < 10 ? ms.toFixed(2) : ms.toFixed(1));
  console.log(`profile of ${name} (${fmt(wallMs / per)} ms each of ${per}), self time each: ${file}`);
  for (const [k, ms] of top) console.log(`  ${fmt(ms / per).padStart(7)} ms  ${k}`);
}
