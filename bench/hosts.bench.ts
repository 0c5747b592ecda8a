import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import { join, resolve } from 'node:path';
import { performance } from 'node:perf_hooks';
import { expect, it } from 'vitest';
import { machineFacts } from './machine';
import { liveEngineDeps } from '../src/main/engine/context';
import { countingExec, liveExec } from '../src/main/engine/deps';
import { Engine } from '../src/main/engine/engine';
import { loadRigSpec } from '../src/main/engine/spec';
import { RUNTIMES } from '../src/main/engine/runtimes';
import { closeMaster, TestSshd } from '../test/support/sshd';
import { hookBench } from './hosts-hooks';
import { cleanTmuxEnv, TestTmux } from '../test/support/tmux';
import { controlPathFor } from '../src/main/engine/hosts/ssh';

/**
 * Roster refresh of an SSH host (issue 7): N panes on Rigdesk's tmux server on the host, reached
 * through this bench's own sshd on 127.0.0.1 (a dedicated local user stands in for the remote
 * machine). Measures round trips to the host per refresh and wall time of `Engine.roster()`.
 * Target: round trips constant in N; 100 remote seats under 300 ms (median) on loopback.
 *
 * Run: npx vitest run --config bench/vitest.bench.config.mts bench/hosts.bench.ts
 * Env: RDBENCH_SIZES=1,20,100  RDBENCH_REPS=30  RDBENCH_WARMUP=3 (defaults shown);
 * RDBENCH_PART=roster|hooks runs one part; RDBENCH_HOOK_TRIALS=10 (the hooks part, hosts-hooks.ts).
 */

const SIZES = listEnv('RDBENCH_SIZES', [1, 20, 100]);
const REPS = numEnv('RDBENCH_REPS', 30);
const WARMUP = numEnv('RDBENCH_WARMUP', 3);
const TARGET_SEATS = 100;
const AGENT_AND_SHELL = RUNTIMES.map((r) => r.id);
const TARGET_MEDIAN_MS = 300;
const RESULTS_DIR = resolve(__dirname, 'results');

interface SizeResult {
  seats: number;
  panesSeen: number;
  problems: string[];
  roundTripsPerRefresh: number[];
  sshSpawnsPerRefresh: number[];
  medianMs: number;
  p95Ms: number;
  minMs: number;
  maxMs: number;
}

const PART = process.env.RDBENCH_PART ?? 'all';

it.skipIf(PART === 'hooks')(
  'hosts bench: a remote roster refresh costs constant round trips; 100 remote seats under 300 ms',
  async () => {
    const started = Date.now();
    const machine = {
      ...machineFacts(),
      ssh: execFileSync('ssh', ['-V'], { encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] }).trim() || sshVersion(),
    };
    const results: SizeResult[] = [];
    for (const n of SIZES) results.push(await benchSize(n));
    const lines = results.map(
      (r) =>
        `${String(r.seats).padStart(4)} seats: round trips ${range(r.roundTripsPerRefresh)}, ssh spawns ${range(r.sshSpawnsPerRefresh)}, median ${r.medianMs.toFixed(1)} ms, p95 ${r.p95Ms.toFixed(1)} ms (panes seen ${r.panesSeen})`,
    );
    for (const l of lines) process.stdout.write(`[hosts bench] ${l}\n`);
    const doc = {
      bench: 'hosts',
      date: new Date().toISOString(),
      totalMs: Date.now() - started,
      settings: { sizes: SIZES, reps: REPS, warmup: WARMUP },
      machine: { ...machine, loadavgAtEnd: os.loadavg() },
      targets: { roundTrips: 'constant in seats', seats: TARGET_SEATS, medianMs: TARGET_MEDIAN_MS },
      results,
    };
    mkdirSync(RESULTS_DIR, { recursive: true });
    writeFileSync(
      join(RESULTS_DIR, `hosts-${doc.date.replace(/:/g, '-').replace(/\.\d+Z$/, 'Z')}.json`),
      `${JSON.stringify(doc, null, 2)}\n`,
    );

    for (const r of results) expect(r.problems).toEqual([]);
    const trips = new Set(results.flatMap((r) => r.roundTripsPerRefresh));
    expect(trips.size, `round trips per refresh differ across sizes: ${[...trips].join(', ')}`).toBe(1);
    const at = results.find((r) => r.seats === TARGET_SEATS);
    if (at) expect(at.medianMs).toBeLessThan(TARGET_MEDIAN_MS);
  },
);

async function benchSize(n: number): Promise<SizeResult> {
  const root = mkdtempSync(join(os.tmpdir(), 'rdbench-hosts-'));
  const sshd = await new TestSshd().start();
  const tmux = new TestTmux('rdbh');
  const env = cleanTmuxEnv({
    RIGDESK_HOME: join(root, 'home'),
    RIGDESK_TMUX_SOCKET: tmux.socketName,
    RIGDESK_TMUX_CONF: '/dev/null',
  });
  mkdirSync(env.RIGDESK_HOME!, { recursive: true });
  const exec = countingExec(liveExec);
  const engine = new Engine(liveEngineDeps(env, { exec }));
  try {
    // N panes on the host's Rigdesk server, made in one tmux command list by the remote user.
    const cmds: string[] = [];
    for (let i = 0; i < n; i++) cmds.push(...(i ? [';'] : []), 'new-session', '-d', '-s', `s${i}`, 'sleep', '3600');
    sshd.asRemote(['tmux', '-L', sshd.tmuxSocket, '-f', '/dev/null', ...cmds]);
    const specPath = join(root, 'rig.yaml');
    writeFileSync(
      specPath,
      `${[
        'name: bench',
        'hosts:',
        sshd.hostYaml('box'),
        'pods:',
        '  - id: team',
        '    members:',
        `      - { id: r, runtime: shell, cwd: ${sshd.remoteDir}, command: sleep, args: ["3600"], host: box }`,
      ].join('\n')}\n`,
    );
    const spec = loadRigSpec(specPath, { knownRuntimes: AGENT_AND_SHELL });
    if (!spec.ok) throw new Error(spec.message);
    engine.store.rigs.upsert(spec.spec);

    const times: number[] = [];
    const trips: number[] = [];
    const spawns: number[] = [];
    let panesSeen = 0;
    let problems: string[] = [];
    for (let i = 0; i < WARMUP + REPS; i++) {
      const host = engine.hosts.get('box')!;
      const t0 = host.exec.roundTrips;
      const c0 = exec.calls.length;
      const s = performance.now();
      const roster = await engine.roster();
      const ms = performance.now() - s;
      if (i < WARMUP) continue;
      times.push(ms);
      trips.push(host.exec.roundTrips - t0);
      spawns.push(exec.calls.slice(c0).filter((c) => c[0] === 'ssh').length);
      panesSeen = roster.panes.filter((p) => p.server.startsWith('H:box|')).length;
      problems = roster.problems.map((p) => `${p.probe}: ${p.error}`);
    }
    times.sort((a, b) => a - b);
    return {
      seats: n,
      panesSeen,
      problems,
      roundTripsPerRefresh: [...new Set(trips)],
      sshSpawnsPerRefresh: [...new Set(spawns)],
      medianMs: round(times[Math.floor(times.length / 2)]!),
      p95Ms: round(times[Math.floor(times.length * 0.95)]!),
      minMs: round(times[0]!),
      maxMs: round(times[times.length - 1]!),
    };
  } finally {
    engine.store.close();
    closeMaster(controlPathFor(env.RIGDESK_HOME!, 'box'));
    tmux.kill();
    await sshd.cleanup();
    rmSync(root, { recursive: true, force: true });
  }
}

function sshVersion(): string {
  try {
    return execFileSync('ssh', ['-V'], { encoding: 'utf8', stdio: ['ignore', 'ignore', 'pipe'] }).trim();
  } catch (e) {
    return String((e as { stderr?: string }).stderr ?? '').trim();
  }
}
const round = (x: number) => Math.round(x * 10) / 10;
const range = (xs: number[]) => (xs.length === 1 ? String(xs[0]) : `${Math.min(...xs)}-${Math.max(...xs)}`);
function numEnv(name: string, dflt: number): number {
  const v = Number(process.env[name]);
  return Number.isFinite(v) && v > 0 ? v : dflt;
}
function listEnv(name: string, dflt: number[]): number[] {
  const v = process.env[name];
  return v
    ? v
        .split(',')
        .map(Number)
        .filter((x) => x > 0)
    : dflt;
}

it.skipIf(PART === 'roster')(
  "hosts bench: a remote Claude seat's permission prompt reaches ps and the window through its hook within 1 s (p95), against the screen-only path",
  async () => {
    await hookBench(RESULTS_DIR);
  },
);
