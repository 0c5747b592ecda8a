import { execFileSync } from 'node:child_process';
import { appendFileSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import { join, resolve } from 'node:path';
import { expect, it } from 'vitest';
import { claudeSink } from '../src/main/engine/runtimes/usage/claude';
import { liveOpencodeQuery } from '../src/main/engine/usage/opencode';
import { liveTailIO } from '../src/main/engine/usage/tail';
import type { UsageTotals } from '../src/main/engine/runtimes/usage/records';
import { UsageWatch } from '../src/main/engine/usage/watch';
import { bundledCatalog } from '../src/main/engine/usage/catalog';
import { seatFigures } from '../src/main/engine/usage/figures';
import { NO_SETTINGS } from '../src/main/engine/usage/settings';

/**
 * Token reading (`npx vitest run --config bench/vitest.bench.config.mts bench/usage.bench.ts`): a
 * Claude Code transcript grows by RDBENCH_USAGE_MB (default 10) MB in steps of RDBENCH_USAGE_STEP_KB
 * (default 256) kB of lines in its real shape (tool results of a few kB, replies with usage, the
 * odd large file read), and after each step the engine's watch reads it, as a refresh does. The
 * engine's CPU for reading (this process's user + system time around the read) per MB added,
 * early (the median step of the first quarter of the growth) against late (of the last quarter),
 * the median of RDBENCH_USAGE_REPS (default 5) growths: proportional to the bytes added, the ratio
 * stays near 1, and the bytes the engine read are the bytes written. For contrast, in the same run and at the same steps, a
 * reader that parses the whole file per refresh (what "never re-read a whole transcript" rules
 * out), whose cost per MB added grows with the file. Printed and written to bench/results.
 */
const TOTAL_MB = Number(process.env.RDBENCH_USAGE_MB ?? 10);
const STEP_KB = Number(process.env.RDBENCH_USAGE_STEP_KB ?? 256);
/** Target: late CPU per MB added within this factor of early. */
const TARGET_RATIO = 1.5;

function cpuMicros(): number {
  const u = process.cpuUsage();
  return u.user + u.system;
}

/** Lines as Claude Code writes them: a prompt, tool calls and their results, replies with usage. */
function makeStep(bytes: number, n: { i: number }): { text: string; tokensIn: number; tokensOut: number } {
  const lines: string[] = [];
  let size = 0;
  let tokensIn = 0;
  let tokensOut = 0;
  while (size < bytes) {
    const i = n.i++;
    const result = 'x'.repeat(i % 17 === 0 ? 60_000 : 1500 + ((i * 7919) % 6000));
    const u = {
      input_tokens: 3 + (i % 5),
      cache_creation_input_tokens: 400 + (i % 90),
      cache_read_input_tokens: 20_000 + i,
      output_tokens: 50 + (i % 300),
    };
    tokensIn += u.input_tokens + u.cache_creation_input_tokens + u.cache_read_input_tokens;
    tokensOut += u.output_tokens;
    const common = { parentUuid: `p${i}`, isSidechain: false, sessionId: 's', version: '2.1.197', cwd: '/work' };
    for (const rec of [
      {
        ...common,
        type: 'assistant',
        message: {
          id: `msg_${i}`,
          role: 'assistant',
          model: 'claude-opus-4-8',
          content: [{ type: 'tool_use', id: `t${i}`, name: 'Bash', input: { command: `ls ${i}` } }],
          usage: u,
        },
      },
      {
        ...common,
        type: 'user',
        message: { role: 'user', content: [{ type: 'tool_result', tool_use_id: `t${i}`, content: result }] },
      },
      { ...common, type: 'attachment', attachment: { type: 'todo', content: [] } },
    ]) {
      const line = `${JSON.stringify(rec)}\n`;
      lines.push(line);
      size += Buffer.byteLength(line);
    }
  }
  return { text: lines.join(''), tokensIn, tokensOut };
}

/** The naive reader: the whole file parsed again, every line, at every refresh. */
function naiveRead(path: string): UsageTotals | undefined {
  const sink = claudeSink();
  for (const line of readFileSync(path, 'utf8').split('\n')) {
    if (!line) continue;
    sink.take(JSON.parse(line));
  }
  return sink.totals();
}

function machine() {
  let tmux = '';
  try {
    tmux = execFileSync('tmux', ['-V'], { encoding: 'utf8' }).trim();
  } catch {
    /* not needed here */
  }
  return {
    cpu: os.cpus()[0]?.model,
    cores: os.cpus().length,
    memGB: Math.round(os.totalmem() / 2 ** 30),
    node: process.version,
    tmux,
    load: os.loadavg(),
    processes: readdirSync('/proc').filter((d) => /^\d+$/.test(d)).length,
  };
}

interface Step {
  mb: number;
  addedMB: number;
  us: number;
}

/**
 * One pass: a fresh transcript grown step by step, `read` after each step, its CPU measured alone.
 * The passes run one after another (never interleaved), so one side's garbage is not collected on
 * the other's clock.
 */
function pass(
  dir: string,
  name: string,
  read: (file: string) => { tokensIn: number; tokensOut: number } | undefined,
): Step[] {
  const file = join(dir, `${name}.jsonl`);
  writeFileSync(file, '');
  const n = { i: 0 };
  const steps: Step[] = [];
  let want = { tokensIn: 0, tokensOut: 0 };
  let written = 0;
  while (written < TOTAL_MB * 2 ** 20) {
    const step = makeStep(STEP_KB * 1024, n);
    appendFileSync(file, step.text);
    const added = Buffer.byteLength(step.text);
    written += added;
    want = { tokensIn: want.tokensIn + step.tokensIn, tokensOut: want.tokensOut + step.tokensOut };
    const t0 = cpuMicros();
    const got = read(file);
    const us = cpuMicros() - t0;
    expect(got, `${name} at ${(written / 2 ** 20).toFixed(1)} MB`).toMatchObject(want);
    steps.push({ mb: written / 2 ** 20, addedMB: added / 2 ** 20, us });
  }
  return steps;
}

/**
 * CPU ms per MB added over the first and the last quarter of the growth (the median step of each,
 * so one garbage collection landing on one step does not decide it), and their ratio.
 */
function quarters(steps: Step[]) {
  const q = Math.max(1, Math.floor(steps.length / 4));
  const median = (part: Step[]) => {
    const v = part.map((s) => s.us / 1000 / s.addedMB).sort((a, b) => a - b);
    return v[Math.floor(v.length / 2)]!;
  };
  const early = median(steps.slice(0, q));
  const late = median(steps.slice(-q));
  return {
    earlyMsPerMB: Number(early.toFixed(2)),
    lateMsPerMB: Number(late.toFixed(2)),
    lateOverEarly: Number((late / early).toFixed(2)),
    totalMs: Number((steps.reduce((a, s) => a + s.us, 0) / 1000).toFixed(1)),
  };
}

const REPS = Number(process.env.RDBENCH_USAGE_REPS ?? 5);

it(`reads a transcript growing by ${TOTAL_MB} MB with CPU proportional to the bytes added`, () => {
  const dir = mkdtempSync(join(os.tmpdir(), 'rd-usagebench-'));
  try {
    const engineReps: ReturnType<typeof quarters>[] = [];
    let engineSteps: Step[] = [];
    let bytesRead = 0;
    for (let r = 0; r < REPS; r++) {
      let file = '';
      const watch = new UsageWatch({
        tail: liveTailIO,
        opencode: liveOpencodeQuery,
        locate: () => file,
        readConfig: () => undefined,
        now: () => Date.now(),
      });
      engineSteps = pass(dir, `engine-${r}`, (f) => {
        file = f;
        return watch.read({ runtime: 'claude-code', home: dir, cwd: '/work', conversationId: 's' });
      });
      engineReps.push(quarters(engineSteps));
      bytesRead = watch.bytesRead;
    }
    const naiveSteps = pass(dir, 'naive', naiveRead);
    const naive = quarters(naiveSteps);
    const ratios = engineReps.map((e) => e.lateOverEarly).sort((a, b) => a - b);
    const median = ratios[Math.floor(ratios.length / 2)]!;
    const written = engineSteps.at(-1)!.mb;
    const figures = {
      date: new Date().toISOString(),
      machine: machine(),
      transcriptMB: Number(written.toFixed(2)),
      stepKB: STEP_KB,
      steps: engineSteps.length,
      engineBytesReadPerRep: bytesRead,
      engine: { reps: engineReps, medianLateOverEarly: median },
      naive,
      target: `engine late/early CPU per MB added <= ${TARGET_RATIO} (median of ${REPS} reps)`,
      verdict: median <= TARGET_RATIO ? 'PASS' : 'FAIL',
      perStep: engineSteps.map((s, i) => ({
        mb: Number(s.mb.toFixed(2)),
        engineMs: s.us / 1000,
        naiveMs: (naiveSteps[i]?.us ?? 0) / 1000,
      })),
    };
    console.log(
      [
        `[usage bench] a Claude transcript grown to ${figures.transcriptMB} MB in ${engineSteps.length} steps of ${STEP_KB} kB`,
        ...engineReps.map(
          (e, i) =>
            `  engine rep ${i + 1} (reads what was added): ${e.earlyMsPerMB} ms CPU per MB added early, ${e.lateMsPerMB} late: late/early ${e.lateOverEarly}, ${e.totalMs} ms in all`,
        ),
        `  engine: median late/early ${median} (${figures.verdict}: ${figures.target}); bytes read ${bytesRead} of ${Math.round(written * 2 ** 20)}`,
        `  naive (parses the whole file per refresh): ${naive.earlyMsPerMB} ms per MB added early, ${naive.lateMsPerMB} late: late/early ${naive.lateOverEarly}, ${naive.totalMs} ms in all`,
      ].join('\n'),
    );
    const out = resolve(__dirname, 'results');
    mkdirSync(out, { recursive: true });
    writeFileSync(
      join(out, `usage-${figures.date.replace(/[:.]/g, '-').slice(0, 19)}Z.json`),
      `${JSON.stringify(figures, null, 2)}\n`,
    );
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

const SEATS = Number(process.env.RDBENCH_USAGE_SEATS ?? 50);
/** How often the engine reads every seat's usage: the window's seat poll (window-hub's default). */
const REFRESH_MS = Number(process.env.RDBENCH_USAGE_REFRESH_MS ?? 1000);
/** How fast each seat's transcript grows: a busy agent's tool results and replies. */
const GROW_KB_PER_S = Number(process.env.RDBENCH_USAGE_KBPS ?? 10);
const REFRESHES = Number(process.env.RDBENCH_USAGE_REFRESHES ?? 60);
/** Target: the engine's reading of every seat stays under this share of one core. */
const TARGET_CORE_SHARE = 0.01;

/**
 * Fifty seats with growing transcripts: each of SEATS Claude transcripts starts at 1 MB and grows by
 * GROW_KB_PER_S kB each second; every REFRESH_MS the engine reads all of them (its watch tails each,
 * then the figures: context window, cost from the catalog), as a window's seat poll has it do. The
 * CPU of that reading (this process's user + system time around it), per refresh, over the refresh
 * period, is the share of one core the engine spends on usage. The median of REFRESHES refreshes
 * is held to TARGET_CORE_SHARE.
 */
it(`${SEATS} seats with growing transcripts cost the engine under 1 % of a core`, () => {
  const dir = mkdtempSync(join(os.tmpdir(), 'rd-usagebench50-'));
  try {
    const files = Array.from({ length: SEATS }, (_, i) => join(dir, `seat-${i}.jsonl`));
    const n = { i: 0 };
    const want = files.map(() => ({ tokensIn: 0, tokensOut: 0 }));
    let appended = 0;
    const grow = (k: number, bytes: number) => {
      const step = makeStep(bytes, n);
      appendFileSync(files[k]!, step.text);
      appended += Buffer.byteLength(step.text);
      want[k]!.tokensIn += step.tokensIn;
      want[k]!.tokensOut += step.tokensOut;
    };
    files.forEach((f, k) => {
      writeFileSync(f, '');
      grow(k, 2 ** 20);
    });
    let located = '';
    const watch = new UsageWatch({
      tail: liveTailIO,
      opencode: liveOpencodeQuery,
      locate: () => located,
      readConfig: () => undefined,
      now: () => Date.now(),
    });
    const catalog = bundledCatalog();
    const readAll = () =>
      files.map((f, k) => {
        located = f;
        const t = watch.read({ runtime: 'claude-code', home: dir, cwd: '/work', conversationId: `s${k}` });
        return { t, figures: seatFigures(t, { catalog, settings: NO_SETTINGS, at: Date.now() }) };
      });
    readAll(); // an engine's first look reads each transcript once; from then on only what was added
    const perRefreshBytes = Math.round((GROW_KB_PER_S * 1024 * REFRESH_MS) / 1000);
    const cpuMs: number[] = [];
    const before = watch.bytesRead;
    const appendedBefore = appended;
    for (let r = 0; r < REFRESHES; r++) {
      for (let k = 0; k < SEATS; k++) grow(k, perRefreshBytes);
      const t0 = cpuMicros();
      const got = readAll();
      cpuMs.push((cpuMicros() - t0) / 1000);
      got.forEach((g, k) => {
        expect(g.t, `seat ${k} at refresh ${r}`).toMatchObject(want[k]!);
        expect(g.figures.costUsd, `seat ${k}'s cost`).toBeGreaterThan(0);
      });
    }
    const sorted = [...cpuMs].sort((a, b) => a - b);
    const median = sorted[Math.floor(sorted.length / 2)]!;
    const p90 = sorted[Math.floor(sorted.length * 0.9)]!;
    const share = median / REFRESH_MS;
    const figures = {
      date: new Date().toISOString(),
      machine: machine(),
      seats: SEATS,
      refreshMs: REFRESH_MS,
      growKBPerSecondPerSeat: GROW_KB_PER_S,
      // A step ends on a whole line (a tool result can be 60 kB), so the real growth is above the asked one.
      actualGrowKBPerSecondPerSeat: Number(
        ((appended - appendedBefore) / SEATS / ((REFRESHES * REFRESH_MS) / 1000) / 1024).toFixed(1),
      ),
      refreshes: REFRESHES,
      bytesReadAfterFirstLook: watch.bytesRead - before,
      bytesAdded: appended - appendedBefore,
      cpuMsPerRefresh: { median: Number(median.toFixed(2)), p90: Number(p90.toFixed(2)), max: sorted.at(-1) },
      coreShare: Number(share.toFixed(5)),
      target: `median CPU per refresh / refresh period < ${TARGET_CORE_SHARE} (1 % of a core)`,
      verdict: share < TARGET_CORE_SHARE ? 'PASS' : 'FAIL',
    };
    console.log(
      `[usage bench] ${SEATS} seats, each transcript growing ${figures.actualGrowKBPerSecondPerSeat} kB/s (asked ${GROW_KB_PER_S}), all read every ${REFRESH_MS} ms: ` +
        `${figures.cpuMsPerRefresh.median} ms CPU per refresh (p90 ${figures.cpuMsPerRefresh.p90}), ` +
        `${(share * 100).toFixed(3)} % of a core (${figures.verdict}: ${figures.target}); bytes read ${figures.bytesReadAfterFirstLook} of ${figures.bytesAdded} added`,
    );
    const out = resolve(__dirname, 'results');
    mkdirSync(out, { recursive: true });
    writeFileSync(
      join(out, `usage-seats-${figures.date.replace(/[:.]/g, '-').slice(0, 19)}Z.json`),
      `${JSON.stringify(figures, null, 2)}\n`,
    );
    expect(figures.bytesReadAfterFirstLook).toBe(figures.bytesAdded);
    expect(share).toBeLessThan(TARGET_CORE_SHARE);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});
