import { type ChildProcess, execFileSync, spawn } from 'node:child_process';
import { mkdirSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import { join, resolve } from 'node:path';
import { it } from 'vitest';
import { ActivityMonitor, type ActivityChange } from '../src/main/engine/activity/monitor';
import { runtimeById } from '../src/main/engine/runtimes';
import { waitFor } from '../test/support/tmux';
import { cliProblem, JourneyWorld, startServer, typeInto, type AgentRuntime } from '../test/journeys/support';

/**
 * Activity under load (`npm run bench:activity`): what share of a real agent's working periods of
 * 3 s or more the engine's own monitor (as the app and `rigdesk serve` run it) reported as working,
 * and how late, on this machine as it is and then with one core kept busy (scripts/busy-core.mjs),
 * in the same run. Real Claude Code, Codex and Pi seats against the fake model server, one seat at
 * a time; a period is one SLOW reply, from the model request arriving to the reply being over
 * (both from the fake server's log).
 *
 * Env: RDBENCH_LOAD_TRIALS=5 (periods per runtime and phase)
 */
const TRIALS = Number(process.env.RDBENCH_LOAD_TRIALS ?? 5);
const RUNTIMES: AgentRuntime[] = ['claude-code', 'codex', 'pi'];
/** Four chunks a second apart: the reply streams for 3 s once its first token is out. */
const SLOW = { slowChunks: 4, slowMs: 1000 };
const MIN_PERIOD_MS = 3000;

interface Period {
  runtime: AgentRuntime;
  startMs: number;
  endMs: number;
  seen: boolean;
  /** From the reply's start to the first report of working within it (0 if already working). */
  delayMs?: number;
}

/** The seat's label at time t: the last change at or before t. */
function labelAt(changes: ActivityChange[], seat: string, t: number): string | undefined {
  return changes.filter((c) => c.seat === seat && c.at <= t).at(-1)?.label;
}

function judge(changes: ActivityChange[], seat: string, runtime: AgentRuntime, startMs: number, endMs: number): Period {
  if (labelAt(changes, seat, startMs) === 'working') return { runtime, startMs, endMs, seen: true, delayMs: 0 };
  const first = changes.find((c) => c.seat === seat && c.label === 'working' && c.at > startMs && c.at <= endMs);
  return { runtime, startMs, endMs, seen: first !== undefined, ...(first ? { delayMs: first.at - startMs } : {}) };
}

/** One core kept busy until stopped (the script stops its loop by itself after 30 min at most). */
function busyCore(): ChildProcess {
  return spawn(
    process.execPath,
    [resolve(__dirname, '../scripts/busy-core.mjs'), '--cores', '1', '--max-minutes', '30', '--', 'sleep', '1800'],
    { stdio: 'ignore' },
  );
}

async function phase(
  j: JourneyWorld,
  server: Awaited<ReturnType<typeof startServer>>['server'],
  changes: ActivityChange[],
): Promise<Period[]> {
  const periods: Period[] = [];
  for (let i = 0; i < TRIALS; i++) {
    for (const runtime of RUNTIMES) {
      const seat = `${runtime}@load`;
      const from = server.requests.length;
      await typeInto(j.w.tmux, seat, `trial ${i} SLOW`, runtimeById(runtime), runtimeById(runtime)?.submitDelayMs ?? 0);
      const mine = () => server.requests.slice(from).filter((r) => r.trigger.includes('slow'));
      await waitFor(() => mine().length > 0 && mine().every((r) => server.endedAt(r) !== undefined), {
        timeoutMs: 60_000,
        what: `${seat}'s reply over`,
      });
      const startMs = Math.min(...mine().map((r) => r.at));
      const endMs = Math.max(...mine().map((r) => server.endedAt(r)!));
      await waitFor(() => labelAt(changes, seat, Date.now()) === 'idle', {
        timeoutMs: 30_000,
        intervalMs: 50,
        what: `${seat} idle again`,
      });
      if (endMs - startMs >= MIN_PERIOD_MS) periods.push(judge(changes, seat, runtime, startMs, endMs));
    }
  }
  return periods;
}

function summary(periods: Period[]) {
  const delays = periods.flatMap((p) => (p.delayMs === undefined ? [] : [p.delayMs])).sort((a, b) => a - b);
  return {
    periods: periods.length,
    seen: periods.filter((p) => p.seen).length,
    sharePct: periods.length ? Math.round((100 * periods.filter((p) => p.seen).length) / periods.length) : 0,
    medianDelayMs: delays[Math.floor(delays.length / 2)],
    maxDelayMs: delays.at(-1),
    byRuntime: Object.fromEntries(
      RUNTIMES.map((r) => [
        r,
        `${periods.filter((p) => p.runtime === r && p.seen).length}/${periods.filter((p) => p.runtime === r).length}`,
      ]),
    ),
  };
}

it(
  "activity under load: share of real agents' working periods (>= 3 s) reported as working, idle vs one core busy",
  async () => {
    const missing = RUNTIMES.map((r) => cliProblem(r)).filter(Boolean);
    if (missing.length)
      throw new Error(`this bench needs the real agent CLIs (npm ci installs them): ${missing.join('; ')}`);
    const { server, closed } = await startServer(SLOW);
    const j = new JourneyWorld(server, closed, RUNTIMES);
    const changes: ActivityChange[] = [];
    let m: ActivityMonitor | undefined;
    let busy: ChildProcess | undefined;
    const results: Record<string, ReturnType<typeof summary>> = {};
    try {
      await j.up(
        'load',
        RUNTIMES.map((r) => ({ id: r, runtime: r })),
      );
      m = new ActivityMonitor(j.w.engine().ports);
      m.onChange((c) => changes.push(c));
      await m.start();
      for (const r of RUNTIMES)
        await waitFor(() => labelAt(changes, `${r}@load`, Date.now()) === 'idle', {
          timeoutMs: 60_000,
          intervalMs: 100,
          what: `${r} idle after launch`,
        });
      results.asIs = summary(await phase(j, server, changes));
      busy = busyCore();
      results.oneCoreBusy = summary(await phase(j, server, changes));
    } finally {
      busy?.kill('SIGTERM');
      m?.stop();
      await j.cleanup();
      await server.close();
    }
    const figures = {
      date: new Date().toISOString(),
      machine: {
        cpu: os.cpus()[0]?.model,
        cores: os.cpus().length,
        memoryGiB: Math.round(os.totalmem() / 2 ** 30),
        node: process.version,
        tmux: execFileSync('tmux', ['-V'], { encoding: 'utf8' }).trim(),
        load: os.loadavg(),
      },
      trialsPerRuntime: TRIALS,
      minPeriodMs: MIN_PERIOD_MS,
      ...results,
      target: 'every period of 3 s or more seen as working, as is and with one core busy',
    };
    const line = (name: string, s: ReturnType<typeof summary>) =>
      `${name}: ${s.seen}/${s.periods} working periods seen (${s.sharePct} %; ${Object.entries(s.byRuntime)
        .map(([r, v]) => `${r} ${v}`)
        .join(', ')}), delay median ${s.medianDelayMs} ms, max ${s.maxDelayMs} ms`;
    const all =
      results.asIs!.seen === results.asIs!.periods &&
      results.oneCoreBusy!.seen === results.oneCoreBusy!.periods &&
      results.oneCoreBusy!.periods > 0;
    console.log(
      [
        line('as is', results.asIs!),
        line('one core busy', results.oneCoreBusy!),
        `${all ? 'PASS' : 'FAIL'}  every working period of 3 s or more seen, also with one core busy`,
      ].join('\n'),
    );
    const dir = resolve(__dirname, 'results');
    mkdirSync(dir, { recursive: true });
    writeFileSync(
      join(dir, `activity-load-${figures.date.replace(/[:.]/g, '-').slice(0, 19)}Z.json`),
      `${JSON.stringify(figures, null, 2)}\n`,
    );
  },
  30 * 60_000,
);
