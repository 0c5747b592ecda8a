import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { performance } from 'node:perf_hooks';
import { expect, it } from 'vitest';
import { dispatch } from '../src/main/engine/api';
import { ChangesBook } from '../src/main/engine/changes/book';
import { parcelWatchPort } from '../src/main/engine/changes/parcel-port';
import { liveEngineDeps } from '../src/main/engine/context';
import { countingExec, liveExec, liveFs, systemClock } from '../src/main/engine/deps';
import { Engine } from '../src/main/engine/engine';
import { liveScratchFs, localGitPort } from '../src/main/engine/git';
import { resolveHome } from '../src/main/engine/home';
import { TestRepo } from '../test/support/git-repo';
import { cleanTmuxEnv, TestTmux } from '../test/support/tmux';
import { machineFacts } from './machine';

/**
 * The changes bench (issue #34): SEATS shell seats, each in its own worktree of a repository of
 * FILES files. A write in one seat's worktree must reach `ps` within 2 s (p95); with nothing
 * changing, watching every worktree must cost the engine under 1 % of a core; and a change must
 * cost git work for that seat's tree only (every git run after a write is counted by its `-C`).
 *
 * Run: npx vitest run --config bench/vitest.bench.config.mts bench/changes.bench.ts
 * Env: RDBENCH_SEATS=20 RDBENCH_FILES=10000 RDBENCH_REPS=20 RDBENCH_REST_S=30 (defaults shown).
 */

const num = (k: string, d: number) => (process.env[k] ? Number(process.env[k]) : d);
const SEATS = num('RDBENCH_SEATS', 20);
const FILES = num('RDBENCH_FILES', 10_000);
const REPS = num('RDBENCH_REPS', 20);
const REST_S = num('RDBENCH_REST_S', 30);
const TARGET_P95_MS = 2000;
const TARGET_REST_CORE_PCT = 1;

function pct(xs: number[], p: number): number {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.ceil((p / 100) * s.length) - 1)] ?? Number.NaN;
}

/** A repository of `n` small text files in folders of 100, committed once. */
function bigRepo(n: number): TestRepo {
  const repo = new TestRepo('rdbench-changes-');
  for (let i = 0; i < n; i++) {
    const dir = join(repo.dir, `d${Math.floor(i / 100)}`);
    if (i % 100 === 0) mkdirSync(dir, { recursive: true });
    writeFileSync(join(dir, `f${i}.txt`), `file ${i}\nline two\n`);
  }
  repo.commitAll('a big base');
  return repo;
}

it(`changes: ${SEATS} worktrees of a ${FILES}-file repository`, async () => {
  const repo = bigRepo(FILES);
  const root = mkdtempSync(join(tmpdir(), 'rdbench-changes-home-'));
  const tmux = new TestTmux('rdbc');
  const env = cleanTmuxEnv({
    ...(TestRepo.env() as Record<string, string>),
    RIGDESK_HOME: join(root, 'home'),
    RIGDESK_TMUX_SOCKET: tmux.socketName,
    RIGDESK_TMUX_CONF: '/dev/null',
  });
  mkdirSync(join(root, 'home'), { recursive: true });
  const git = countingExec(liveExec);
  const gitPort = localGitPort(git, liveScratchFs(liveFs), env);
  const engine = new Engine(liveEngineDeps(env, { layout: resolveHome(env) }), () => ({
    gitOn: () => gitPort,
    changes: new ChangesBook({ gitOn: () => gitPort, clock: systemClock }),
  }));
  try {
    const members = Array.from(
      { length: SEATS },
      (_, i) =>
        `      - { id: s${i}, runtime: shell, cwd: ${JSON.stringify(repo.dir)}, command: sleep, args: ["3600"] }`,
    );
    const spec = join(root, 'rig.yaml');
    writeFileSync(
      spec,
      ['name: big', 'pods:', '  - id: work', '    worktree: true', '    members:', ...members].join('\n'),
    );
    const t0 = performance.now();
    const up = await dispatch(engine, 'up', { spec });
    expect(up.ok, JSON.stringify(up).slice(0, 400)).toBe(true);
    const upMs = performance.now() - t0;

    engine.ports.changes.startWatching(parcelWatchPort());
    const first = performance.now();
    const all = await dispatch(engine, 'changes.list', { rig: 'big' });
    expect(all.ok).toBe(true);
    const firstReadMs = performance.now() - first;

    const tree = (i: number) => join(root, 'home', 'worktrees', 'big', `s${i}`);
    const filesOf = async (seat: string) => {
      const r = await dispatch(engine, 'ps', { rig: 'big' });
      return r.ok ? r.seats.find((s) => s.seat === seat)?.changes?.files : undefined;
    };

    // A write in one seat: until ps shows it, and the git runs it cost, by tree.
    const latencies: number[] = [];
    const foreign: string[] = [];
    for (let rep = 0; rep < REPS; rep++) {
      const i = rep % SEATS;
      const seat = `s${i}@big`;
      const before = (await filesOf(seat)) ?? 0;
      const callsBefore = git.calls.length;
      const t = performance.now();
      writeFileSync(join(tree(i), `d${rep % 100}`, `new-${rep}.txt`), `written in rep ${rep}\n`);
      for (;;) {
        if (((await filesOf(seat)) ?? 0) > before) break;
        if (performance.now() - t > 10_000) throw new Error(`rep ${rep}: the write never reached ps`);
        await new Promise((r) => setTimeout(r, 20));
      }
      latencies.push(performance.now() - t);
      await new Promise((r) => setTimeout(r, 300)); // let the settle window close before the next
      for (const c of git.calls.slice(callsBefore)) {
        const dir = c[c.indexOf('-C') + 1] ?? '';
        if (!dir.startsWith(tree(i))) foreign.push(`${seat}: ${c.slice(1, 4).join(' ')} in ${dir}`);
      }
    }

    // Nothing changing: the engine's CPU while it watches every worktree.
    await new Promise((r) => setTimeout(r, 1000));
    const cpu0 = process.cpuUsage();
    const wall0 = performance.now();
    const gitAtRest = git.count;
    await new Promise((r) => setTimeout(r, REST_S * 1000));
    const cpu = process.cpuUsage(cpu0);
    const restPct = ((cpu.user + cpu.system) / 1000 / (performance.now() - wall0)) * 100;

    const figures = {
      bench: 'changes',
      date: new Date().toISOString(),
      machine: machineFacts(),
      seats: SEATS,
      files: FILES,
      reps: REPS,
      upMs: Math.round(upMs),
      firstReadMs: Math.round(firstReadMs),
      writeToPs: {
        p50Ms: Math.round(pct(latencies, 50)),
        p95Ms: Math.round(pct(latencies, 95)),
        maxMs: Math.round(Math.max(...latencies)),
        target: `p95 <= ${TARGET_P95_MS} ms`,
        verdict: pct(latencies, 95) <= TARGET_P95_MS ? 'PASS' : 'FAIL',
      },
      rest: {
        seconds: REST_S,
        corePct: Number(restPct.toFixed(3)),
        gitRuns: git.count - gitAtRest,
        target: `< ${TARGET_REST_CORE_PCT} % of a core`,
        verdict: restPct < TARGET_REST_CORE_PCT ? 'PASS' : 'FAIL',
      },
      gitRunsOutsideTheWrittenTree: foreign.length,
      foreignSample: foreign.slice(0, 5),
    };
    console.log(
      [
        `[changes bench] ${SEATS} worktrees of ${FILES} files: up ${figures.upMs} ms, first read of all ${figures.firstReadMs} ms`,
        `  write -> ps: p50 ${figures.writeToPs.p50Ms} ms, p95 ${figures.writeToPs.p95Ms} ms, max ${figures.writeToPs.maxMs} ms (${figures.writeToPs.verdict}: ${figures.writeToPs.target})`,
        `  at rest for ${REST_S} s: ${figures.rest.corePct} % of a core, ${figures.rest.gitRuns} git runs (${figures.rest.verdict}: ${figures.rest.target})`,
        `  git runs outside the written seat's tree after a write: ${foreign.length}`,
      ].join('\n'),
    );
    const out = resolve(__dirname, 'results');
    mkdirSync(out, { recursive: true });
    writeFileSync(
      join(out, `changes-${figures.date.replace(/[:.]/g, '-').slice(0, 19)}Z.json`),
      `${JSON.stringify(figures, null, 2)}\n`,
    );
    expect(foreign).toEqual([]);
  } finally {
    await engine.ports.changes.close();
    tmux.kill();
    engine.store.close();
    rmSync(root, { recursive: true, force: true });
    repo.remove();
  }
});
