import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import { basename, join, resolve } from 'node:path';
import { performance } from 'node:perf_hooks';
import { expect, it } from 'vitest';
import { machineFacts } from './machine';
import { profiled } from './profile';
import { liveEngineDeps } from '../src/main/engine/context';
import { countingExec, liveExec } from '../src/main/engine/deps';
import { Engine } from '../src/main/engine/engine';
import { upRig } from '../src/main/engine/services/up';
import { downRig } from '../src/main/engine/services/down';
import { type TmuxMode, TmuxLinks } from '../src/main/engine/tmux/held';
import { cleanTmuxEnv, TestTmux } from '../test/support/tmux';

/** A tmux call as the results file keeps it: a socket by its name, not by this machine's path to it. */
function withoutSocketDir(argv: string[]): string {
  return argv.map((a, i) => (argv[i - 1] === '-S' ? `…/${basename(a)}` : a)).join(' ');
}

/**
 * Roster refresh bench (design.md "Numbers to beat"): for N shell seats on a private tmux server,
 * how many processes one `Engine.roster()` spawns, and how long it takes, against the per-seat
 * polling peers use (one `tmux display-message` per pane). Both are measured in the same run,
 * interleaved, so the ratio holds on a shared, noisy machine even when absolute times drift.
 * Every size runs twice, on a server of its own each: with the engine's held tmux client, and with
 * one `tmux` process per command (the one-shot path), so the two compare in one run.
 *
 * Run: npx vitest run --config bench/vitest.bench.config.mts bench/roster.bench.ts
 * Env: RDBENCH_SIZES=10,50,200  RDBENCH_REPS=30  RDBENCH_WARMUP=3 (defaults shown); RDBENCH_PROFILE=1
 * profiles extra refreshes of the largest size (held) and prints the functions that took longest.
 */

const SIZES = listEnv('RDBENCH_SIZES', [10, 50, 200]);
const REPS = numEnv('RDBENCH_REPS', 30);
const WARMUP = numEnv('RDBENCH_WARMUP', 3);
const TARGET_SEATS = 200;
const TARGET_MEDIAN_MS = 20;
const TARGET_BRING_UP_RATIO = 3;
const MODES: TmuxMode[] = (['held', 'one-shot'] as const).filter((m) =>
  (process.env.RDBENCH_MODES ?? 'held,one-shot').split(',').includes(m),
);
const RESULTS_DIR = resolve(__dirname, 'results');
const PROFILE = process.env.RDBENCH_PROFILE === '1';

/**
 * The seat's program. `sleep` rather than `bash --noprofile --norc`: each pane is already a
 * `/bin/sh` wrapper plus its program, and an idle `sleep` costs ~1 MB RSS, no startup work and
 * no prompt output for tmux to process, where an interactive bash costs ~3-4 MB, reads
 * terminfo and draws a prompt. 200 of either are one pane and two processes each, which is what
 * the roster reads; `sleep` keeps the bring-up and the machine's load lower on two cores.
 */
const SEAT_COMMAND = 'sleep';
const SEAT_ARGS = ['3600'];

interface Stats {
  medianMs: number;
  p95Ms: number;
  minMs: number;
  maxMs: number;
  meanMs: number;
}

interface SizeResult {
  seats: number;
  mode: TmuxMode;
  bringUpMs: number;
  downMs: number;
  /** Processes spawned while bringing the rig up (execFile calls and held clients started). */
  bringUpSpawns: number;
  /** Those spawns by program (and tmux command). */
  bringUpKinds: Record<string, number>;
  /** Rosters the launches took (a fresh launch with nothing to settle takes none). */
  bringUpRosters: number;
  /** Each launch's create (`new-session` and its tags) from the engine's call to tmux's answer, in ms. */
  bringUpCreate: { medianMs: number; p95Ms: number; sumMs: number; inFlightMs: number };
  /** CPU per seat over the bring-up: this process, the children it reaped (one-shot tmux runs), the tmux server. */
  bringUpCpuPerSeatMs: { engine: number; children: number; tmuxServer: number; tmuxServerWaitingForCpu: number };
  panesSeen: number;
  rosterProblems: string[];
  engine: Stats & {
    /** The same, over the refreshes that read nothing for other processes (no other server, no /proc/locks). */
    ownOnly?: Stats & { refreshes: number };
    /** Reads of /proc/locks over the refreshes (and warm-ups), and how long each waited. */
    locks?: Stats & { reads: number };
    spawnsPerRefresh: number[];
    /** Spawns that addressed the bench's own tmux server (the one that scales with N). */
    ownSpawnsPerRefresh: number[];
    /** Spawns caused by agent processes elsewhere on the machine (their TMUX variable). */
    foreignCalls: string[];
  };
  naive: Stats & { spawnsPerRefresh: number[] };
  ratioMedian: number;
  ratioP95: number;
}

it(`roster refresh: spawns and wall time for ${SIZES.join('/')} shell seats`, async () => {
  const started = performance.now();
  const startedAt = new Date();
  const machine = {
    ...machineFacts(),
    procCountAtStart: procCount(),
  };
  log(
    `roster bench: sizes ${SIZES.join(', ')}; ${WARMUP} warm-ups + ${REPS} refreshes each; seat program: ${SEAT_COMMAND} ${SEAT_ARGS.join(' ')}`,
  );
  log(
    `machine: ${machine.cpuModel}, ${machine.cores} cores, ${(machine.totalMemBytes / 2 ** 30).toFixed(1)} GiB, node ${machine.node}, ${machine.tmux}, load ${machine.loadavgAtStart.map((l) => l.toFixed(2)).join(' ')}`,
  );

  const results: SizeResult[] = [];
  for (const n of SIZES) for (const mode of MODES) results.push(await benchSize(n, mode));
  const totalMs = performance.now() - started;

  // ---- verdicts -------------------------------------------------------------------------------
  const of = (mode: TmuxMode) => results.filter((r) => r.mode === mode);
  const ownSpawns = (mode: TmuxMode) => new Set(of(mode).flatMap((r) => r.engine.ownSpawnsPerRefresh));
  const spawnsConstant = MODES.every((m) => ownSpawns(m).size === 1);
  const target = of('held').find((r) => r.seats === TARGET_SEATS);
  const targetOnce = of('one-shot').find((r) => r.seats === TARGET_SEATS);
  const bringUpRatio = target && targetOnce ? targetOnce.bringUpMs / target.bringUpMs : undefined;
  const verdicts = [
    {
      target: 'spawns per refresh constant in N (each path)',
      pass: spawnsConstant,
      detail: results.map((r) => `${r.mode} ${r.seats}: ${range(r.engine.ownSpawnsPerRefresh)}`).join(', '),
      hard: true,
    },
    {
      target: "held: 0 spawns per refresh for Rigdesk's server (one-shot: 1 list-panes -a)",
      pass: [...ownSpawns('held')].every((x) => x === 0) && [...ownSpawns('one-shot')].every((x) => x === 1),
      detail: MODES.map((m) => `${m}: ${[...ownSpawns(m)].join('/')}`).join(', '),
      hard: false,
    },
    ...(target && targetOnce
      ? [
          {
            target: `${TARGET_SEATS} seats, held: refresh median < ${TARGET_MEDIAN_MS} ms`,
            pass: target.engine.medianMs < TARGET_MEDIAN_MS,
            detail: `held ${fmt(target.engine.medianMs)} ms, one-shot ${fmt(targetOnce.engine.medianMs)} ms${target.engine.locks ? `; held, /proc/locks read ${target.engine.locks.reads} times, waiting ${fmt(target.engine.locks.medianMs)} ms median` : ''}${target.engine.ownOnly && target.engine.ownOnly.refreshes < REPS ? `; held, the ${target.engine.ownOnly.refreshes} of ${REPS} refreshes that read nothing for other processes: ${fmt(target.engine.ownOnly.medianMs)} ms` : ''}`,
            hard: false,
          },
          {
            target: `${TARGET_SEATS} shell seats brought up >= ${TARGET_BRING_UP_RATIO}x faster held than one-shot`,
            pass: bringUpRatio! >= TARGET_BRING_UP_RATIO,
            detail: `held ${(target.bringUpMs / 1000).toFixed(1)} s (${target.bringUpSpawns} spawns, tmux's creates ${(target.bringUpCreate.sumMs / 1000).toFixed(1)} s of it), one-shot ${(targetOnce.bringUpMs / 1000).toFixed(1)} s (${targetOnce.bringUpSpawns} spawns, creates ${(targetOnce.bringUpCreate.sumMs / 1000).toFixed(1)} s): ${bringUpRatio!.toFixed(1)}x`,
            hard: false,
          },
          {
            target: `${TARGET_SEATS} shell seats taken down: held vs one-shot (reported, no target)`,
            pass: true,
            detail: `held ${(target.downMs / 1000).toFixed(1)} s, one-shot ${(targetOnce.downMs / 1000).toFixed(1)} s`,
            hard: false,
          },
        ]
      : []),
  ];

  // ---- table ----------------------------------------------------------------------------------
  const rows = [
    [
      'seats',
      'tmux',
      'bring-up',
      'up spawns',
      'up rosters',
      'create med',
      'eng spawns',
      'eng median',
      'eng p95',
      'naive spawns',
      'naive median',
      'naive p95',
      'naive/eng (median)',
      'naive/eng (p95)',
    ],
    ...results.map((r) => [
      String(r.seats),
      r.mode,
      `${(r.bringUpMs / 1000).toFixed(1)} s`,
      String(r.bringUpSpawns),
      String(r.bringUpRosters),
      `${fmt(r.bringUpCreate.medianMs)} ms`,
      range(r.engine.spawnsPerRefresh),
      `${fmt(r.engine.medianMs)} ms`,
      `${fmt(r.engine.p95Ms)} ms`,
      range(r.naive.spawnsPerRefresh),
      `${fmt(r.naive.medianMs)} ms`,
      `${fmt(r.naive.p95Ms)} ms`,
      `${r.ratioMedian.toFixed(1)}x`,
      `${r.ratioP95.toFixed(1)}x`,
    ]),
  ];
  log(`\n${table(rows)}`);
  for (const v of verdicts) log(`${v.pass ? 'PASS' : 'FAIL'}  ${v.target}  (${v.detail})`);
  const foreign = results.flatMap((r) => r.engine.foreignCalls);
  if (foreign.length)
    log(
      `note: refreshes also listed servers of agents found elsewhere on this machine: ${[...new Set(foreign)].join(' | ')}`,
    );
  for (const r of results)
    if (r.rosterProblems.length) log(`note: roster problems at ${r.seats} seats: ${r.rosterProblems.join(' | ')}`);
  log(
    `whole bench: ${(totalMs / 1000).toFixed(1)} s (bring-up ${results.map((r) => `${r.seats} ${r.mode}: ${(r.bringUpMs / 1000).toFixed(1)} s`).join(', ')})`,
  );

  // ---- JSON -----------------------------------------------------------------------------------
  mkdirSync(RESULTS_DIR, { recursive: true });
  const file = join(
    RESULTS_DIR,
    `roster-${startedAt
      .toISOString()
      .replace(/:/g, '-')
      .replace(/\.\d+Z$/, 'Z')}.json`,
  );
  const doc = {
    bench: 'roster',
    date: startedAt.toISOString(),
    totalMs: round(totalMs),
    settings: {
      sizes: SIZES,
      reps: REPS,
      warmup: WARMUP,
      seatProgram: [SEAT_COMMAND, ...SEAT_ARGS],
      modes: MODES,
      naive: "one `tmux display-message -p -t <pane> '#{pane_current_command}'` per seat, sequential, on the same path",
    },
    machine: { ...machine, loadavgAtEnd: os.loadavg() },
    targets: verdicts.map(({ target, pass, detail }) => ({ target, pass, detail })),
    results: results.map((r) => ({
      ...r,
      bringUpMs: round(r.bringUpMs),
      downMs: round(r.downMs),
      bringUpCreate: {
        medianMs: round(r.bringUpCreate.medianMs),
        p95Ms: round(r.bringUpCreate.p95Ms),
        sumMs: round(r.bringUpCreate.sumMs),
        inFlightMs: round(r.bringUpCreate.inFlightMs),
      },
      bringUpCpuPerSeatMs: {
        engine: round(r.bringUpCpuPerSeatMs.engine),
        children: round(r.bringUpCpuPerSeatMs.children),
        tmuxServer: round(r.bringUpCpuPerSeatMs.tmuxServer),
        tmuxServerWaitingForCpu: round(r.bringUpCpuPerSeatMs.tmuxServerWaitingForCpu),
      },
      engine: {
        ...roundStats(r.engine),
        ...(r.engine.ownOnly
          ? { ownOnly: { refreshes: r.engine.ownOnly.refreshes, ...roundStats(r.engine.ownOnly) } }
          : {}),
        ...(r.engine.locks ? { locks: { reads: r.engine.locks.reads, ...roundStats(r.engine.locks) } } : {}),
        spawnsPerRefresh: range(r.engine.spawnsPerRefresh),
        ownSpawnsPerRefresh: range(r.engine.ownSpawnsPerRefresh),
        foreignCalls: [...new Set(r.engine.foreignCalls)],
      },
      naive: { ...roundStats(r.naive), spawnsPerRefresh: range(r.naive.spawnsPerRefresh) },
      ratioMedian: round(r.ratioMedian),
      ratioP95: round(r.ratioP95),
    })),
  };
  writeFileSync(file, `${JSON.stringify(doc, null, 2)}\n`);
  log(`results: ${file}`);

  // Only a spawn count that grows with N fails the run; slow timings are reported, not thrown.
  expect(spawnsConstant, `roster spawns per refresh vary: ${verdicts[0]!.detail}`).toBe(true);
});

async function benchSize(n: number, mode: TmuxMode): Promise<SizeResult> {
  const root = mkdtempSync(join(os.tmpdir(), 'rdbench-'));
  const home = join(root, 'home');
  const tmux = new TestTmux('rdbench'); // -L rdbench-<pid>-<rand>: never the default server
  const env = cleanTmuxEnv({
    RIGDESK_HOME: home,
    RIGDESK_TMUX_SOCKET: tmux.socketName,
    RIGDESK_TMUX_CONF: '/dev/null',
  });
  delete env.RIGDESK_TEST_FAULT;
  let engine: Engine | undefined;
  const links = new TmuxLinks(mode);
  let tornDown = false;
  const teardown = () => {
    if (tornDown) return;
    tornDown = true;
    try {
      engine?.store.close();
    } catch {
      /* already closed */
    }
    links.closeAll();
    tmux.kill(); // kill-server on our own socket: every seat's processes get SIGHUP with it
    rmSync(root, { recursive: true, force: true });
  };
  // Also on an abrupt exit of the worker (Ctrl-C, a crash between awaits): both steps are sync.
  process.once('exit', teardown);
  try {
    mkdirSync(home, { recursive: true });
    const exec = countingExec(liveExec);
    // Every roster the engine reads, counted (what one launch costs, beside its spawns).
    const counted = { rosters: 0 };
    const eng = new Engine(liveEngineDeps(env, { exec, tmux: links }), (p) => ({
      roster: () => (counted.rosters++, p.roster()),
    }));
    // Every process the engine starts: execFile calls, and held control clients.
    const spawnsNow = () => exec.count + links.spawns;
    engine = eng;
    const rig = `bench${n}`;
    const members = Array.from({ length: n }, (_, i) => `s${String(i + 1).padStart(3, '0')}`);
    const specPath = join(root, `${rig}.yaml`);
    writeFileSync(specPath, rigYaml(rig, members));

    // What one launch costs, beside the spawns: the rosters it takes and tmux's own create.
    const rosters0 = counted.rosters;
    const creates: number[] = [];
    const spans: [number, number][] = [];
    const create = eng.own.newSession.bind(eng.own);
    eng.own.newSession = async (...a: Parameters<typeof create>) => {
      const c0 = performance.now();
      const r = await create(...a);
      const c1 = performance.now();
      creates.push(c1 - c0);
      spans.push([c0, c1]);
      return r;
    };
    const cpu0 = { self: process.cpuUsage(), children: reapedChildrenMs() };
    const t0 = performance.now();
    const up = await upRig(eng, specPath);
    const bringUpMs = performance.now() - t0;
    const cpu = process.cpuUsage(cpu0.self);
    const bringUpCpuPerSeatMs = {
      engine: (cpu.user + cpu.system) / 1000 / n,
      children: (reapedChildrenMs() - cpu0.children) / n,
      tmuxServer: 0,
      tmuxServerWaitingForCpu: 0,
    };
    const bringUpRosters = counted.rosters - rosters0;
    eng.own.newSession = create;
    const createStats = stats(creates);
    const bringUpCreate = {
      medianMs: createStats.medianMs,
      p95Ms: createStats.p95Ms,
      sumMs: creates.reduce((a, b) => a + b, 0),
      inFlightMs: unionMs(spans),
    };
    const bringUpSpawns = spawnsNow();
    const bringUpKinds = spawnKinds(exec.calls, links.spawns);
    if (!up.ok) throw new Error(`up of ${n} seats failed: ${up.code}: ${up.message}`);
    log(
      `${n} seats up (${mode}) in ${(bringUpMs / 1000).toFixed(1)} s (${bringUpSpawns} spawns, ${bringUpRosters} rosters); tmux's create median ${fmt(bringUpCreate.medianMs)} ms (${(bringUpCreate.sumMs / 1000).toFixed(1)} s in all, one or more in flight ${(bringUpCreate.inFlightMs / 1000).toFixed(1)} s); CPU per seat: engine ${fmt(bringUpCpuPerSeatMs.engine)} ms, reaped children ${fmt(bringUpCpuPerSeatMs.children)} ms`,
    );

    const first = await eng.roster();
    const panes = first.panes.filter((p) => p.server === eng.ownKey).map((p) => p.paneId);
    if (panes.length !== n) throw new Error(`roster sees ${panes.length} panes on ${eng.ownKey}, expected ${n}`);
    const rosterProblems = first.problems.map((p) => JSON.stringify(p));
    // The server started with this bring-up: its whole CPU is the bring-up's (schedstat: ns, not ticks).
    const serverPid = first.panes.find((p) => p.server === eng.ownKey)?.serverPid;
    const server = serverPid ? schedMs(serverPid) : { onCpu: 0, waiting: 0 };
    bringUpCpuPerSeatMs.tmuxServer = server.onCpu / n;
    bringUpCpuPerSeatMs.tmuxServerWaitingForCpu = server.waiting / n;
    log(
      `  tmux server per seat of the bring-up: ${fmt(server.onCpu / n)} ms on a CPU, ${fmt(server.waiting / n)} ms runnable but waiting for one`,
    );

    const engTimes: number[] = [];
    /**
     * Refreshes that read nothing for other processes on the machine: no other server listed (a tmux
     * process each) and no /proc/locks (read when a Codex home has writer locks; the kernel makes a
     * read after a quiet spell wait for an RCU grace period).
     */
    const engTimesOwnOnly: number[] = [];
    const locksWaits: number[] = [];
    const proc = eng.deps.proc;
    const readLocks = proc.locksAsync?.bind(proc);
    if (readLocks)
      proc.locksAsync = async () => {
        const l0 = performance.now();
        const r = await readLocks();
        locksWaits.push(performance.now() - l0);
        return r;
      };
    const engSpawns: number[] = [];
    const ownSpawns: number[] = [];
    const foreignCalls: string[] = [];
    const naiveTimes: number[] = [];
    const naiveSpawns: number[] = [];
    // Interleaved: engine refresh, then naive sweep, so both see the same machine moment.
    for (let i = 0; i < WARMUP + REPS; i++) {
      const k0 = exec.calls.length;
      const h0 = links.spawns;
      const w0 = locksWaits.length;
      const a = performance.now();
      const roster = await eng.roster();
      const dt = performance.now() - a;
      const calls = exec.calls.slice(k0);
      const heldSpawns = links.spawns - h0;
      if (roster.panes.filter((p) => p.server === eng.ownKey).length !== n)
        throw new Error(`refresh ${i} at ${n} seats lost panes`);

      const k1 = spawnsNow();
      const b = performance.now();
      for (const pane of panes) {
        const r = await eng.own.run(['display-message', '-p', '-t', pane, '#{pane_current_command}']);
        if (r.code !== 0 || r.stdout.trim() === '')
          throw new Error(`naive probe of ${pane} failed: ${r.stderr.trim() || `exit ${r.code}`}`);
      }
      const naiveDt = performance.now() - b;
      const naiveCalls = spawnsNow() - k1;

      if (i < WARMUP) continue;
      engTimes.push(dt);
      const lockedNow = locksWaits.length > w0;
      if (!lockedNow && !calls.some((c) => c[0] === 'tmux' && !c.includes(tmux.socketName))) engTimesOwnOnly.push(dt);
      engSpawns.push(calls.length + heldSpawns);
      const own = calls.filter((c) => c.includes(tmux.socketName));
      ownSpawns.push(own.length + heldSpawns + calls.filter((c) => c[0] !== 'tmux').length);
      foreignCalls.push(...calls.filter((c) => c[0] === 'tmux' && !c.includes(tmux.socketName)).map(withoutSocketDir));
      naiveTimes.push(naiveDt);
      naiveSpawns.push(naiveCalls);
    }
    // RDBENCH_PROFILE=1: REPS more refreshes of the largest size, held, under the CPU profiler.
    if (PROFILE && mode === 'held' && n === Math.max(...SIZES)) await profileRefreshes(eng, `roster-${n}-${mode}`);
    const engStats = stats(engTimes);
    const naive = stats(naiveTimes);
    // The rig taken down the way `rigdesk down` does it (a snapshot, then every seat stopped).
    const d0 = performance.now();
    const down = await downRig(eng, rig);
    const downMs = performance.now() - d0;
    if (!down.ok) throw new Error(`down of ${n} seats failed: ${down.code}: ${down.message}`);
    log(`${n} seats down (${mode}) in ${(downMs / 1000).toFixed(1)} s`);
    log(
      `${n} seats (${mode}): engine median ${fmt(engStats.medianMs)} ms / p95 ${fmt(engStats.p95Ms)} ms (${range(engSpawns)} spawns); naive median ${fmt(naive.medianMs)} ms / p95 ${fmt(naive.p95Ms)} ms (${range(naiveSpawns)} spawns)${locksWaits.length ? `; /proc/locks read ${locksWaits.length} times, waiting ${fmt(stats(locksWaits).medianMs)} ms median` : ''}`,
    );
    return {
      seats: n,
      mode,
      bringUpMs,
      downMs,
      bringUpSpawns,
      bringUpKinds,
      bringUpRosters,
      bringUpCreate,
      bringUpCpuPerSeatMs,
      panesSeen: panes.length,
      rosterProblems,
      engine: {
        ...engStats,
        spawnsPerRefresh: engSpawns,
        ownSpawnsPerRefresh: ownSpawns,
        foreignCalls,
        ownOnly: engTimesOwnOnly.length ? { refreshes: engTimesOwnOnly.length, ...stats(engTimesOwnOnly) } : undefined,
        locks: locksWaits.length ? { reads: locksWaits.length, ...stats(locksWaits) } : undefined,
      },
      naive: { ...naive, spawnsPerRefresh: naiveSpawns },
      ratioMedian: naive.medianMs / engStats.medianMs,
      ratioP95: naive.p95Ms / engStats.p95Ms,
    };
  } finally {
    process.removeListener('exit', teardown);
    teardown();
  }
}

/** REPS refreshes under node's CPU profiler (bench/profile.ts). */
async function profileRefreshes(eng: Engine, name: string): Promise<void> {
  await profiled(name, REPS, async () => {
    for (let i = 0; i < REPS; i++) await eng.roster();
  });
}

/** How long at least one of the spans was running (tmux had a create in hand), in ms. */
function unionMs(spans: [number, number][]): number {
  let total = 0;
  let end = Number.NEGATIVE_INFINITY;
  for (const [a, b] of [...spans].sort((x, y) => x[0] - y[0])) {
    if (b <= end) continue;
    total += b - Math.max(a, end);
    end = b;
  }
  return total;
}

function spawnKinds(calls: string[][], held: number): Record<string, number> {
  const out: Record<string, number> = held ? { 'tmux -C (held client)': held } : {};
  for (const c of calls) {
    const k = c[0] === 'tmux' ? `tmux ${c.find((a, i) => i > 0 && /^[a-z]+-[a-z-]+$/.test(a)) ?? '?'}` : c[0]!;
    out[k] = (out[k] ?? 0) + 1;
  }
  return out;
}

function rigYaml(rig: string, members: string[]): string {
  const args = JSON.stringify(SEAT_ARGS);
  return `${[
    `name: ${rig}`,
    'pods:',
    '  - id: team',
    '    members:',
    ...members.map((m) => `      - { id: ${m}, runtime: shell, cwd: ., command: ${SEAT_COMMAND}, args: ${args} }`),
  ].join('\n')}\n`;
}

/** Nearest-rank percentiles over the measured refreshes (warm-ups excluded). */
function stats(xs: number[]): Stats {
  const s = [...xs].sort((a, b) => a - b);
  const at = (p: number) => s[Math.min(s.length - 1, Math.max(0, Math.ceil(p * s.length) - 1))]!;
  const mid = s.length % 2 ? s[(s.length - 1) / 2]! : (s[s.length / 2 - 1]! + s[s.length / 2]!) / 2;
  return {
    medianMs: mid,
    p95Ms: at(0.95),
    minMs: s[0]!,
    maxMs: s[s.length - 1]!,
    meanMs: s.reduce((a, b) => a + b, 0) / s.length,
  };
}

function roundStats(s: Stats): Stats {
  return {
    medianMs: round(s.medianMs),
    p95Ms: round(s.p95Ms),
    minMs: round(s.minMs),
    maxMs: round(s.maxMs),
    meanMs: round(s.meanMs),
  };
}

function range(xs: number[]): string {
  const lo = Math.min(...xs);
  const hi = Math.max(...xs);
  return lo === hi ? String(lo) : `${lo}-${hi}`;
}

function table(rows: string[][]): string {
  const w = rows[0]!.map((_, c) => Math.max(...rows.map((r) => r[c]!.length)));
  const line = (r: string[]) => r.map((cell, c) => (c === 0 ? cell.padEnd(w[c]!) : cell.padStart(w[c]!))).join('  ');
  return [line(rows[0]!), w.map((x) => '-'.repeat(x)).join('  '), ...rows.slice(1).map(line)].join('\n');
}

/** CPU of the children this process has reaped (utime + stime of waited-for children), in ms. */
function reapedChildrenMs(): number {
  return cpuMs('self').reaped;
}

/**
 * A process's time on a CPU so far and its time runnable but waiting for one (the machine's other
 * work in front of it), in ms, from /proc/<pid>/schedstat (in ns).
 */
function schedMs(pid: number): { onCpu: number; waiting: number } {
  try {
    const [on, wait] = readFileSync(`/proc/${pid}/schedstat`, 'utf8').split(' ').map(Number);
    return { onCpu: on! / 1e6, waiting: wait! / 1e6 };
  } catch {
    return { onCpu: 0, waiting: 0 };
  }
}

/** A process's own CPU and that of the children it reaped, in ms (USER_HZ is 100 on Linux). */
function cpuMs(pid: number | 'self'): { self: number; reaped: number } {
  try {
    const st = readFileSync(`/proc/${pid}/stat`, 'utf8');
    const f = st.slice(st.lastIndexOf(')') + 2).split(' ');
    return { self: (Number(f[11]) + Number(f[12])) * 10, reaped: (Number(f[13]) + Number(f[14])) * 10 };
  } catch {
    return { self: 0, reaped: 0 };
  }
}

function procCount(): number {
  try {
    return os.platform() === 'linux' ? readdirSync('/proc').filter((n) => /^\d+$/.test(n)).length : -1;
  } catch {
    return -1;
  }
}

function fmt(ms: number): string {
  return ms < 10 ? ms.toFixed(2) : ms.toFixed(1);
}

function round(x: number): number {
  return Math.round(x * 100) / 100;
}

function log(s: string): void {
  console.log(s);
}

function numEnv(name: string, dflt: number): number {
  const v = Number(process.env[name]);
  return Number.isInteger(v) && v > 0 ? v : dflt;
}

function listEnv(name: string, dflt: number[]): number[] {
  const v = (process.env[name] ?? '')
    .split(',')
    .map(Number)
    .filter((x) => Number.isInteger(x) && x > 0);
  return v.length ? v : dflt;
}
