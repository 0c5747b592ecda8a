import { type ChildProcess, execFile } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { EventRow } from '../../src/shared/contract';
import { readEngineInfo } from '../../src/main/engine/rpc/server';
import { pidsWithEnv } from '../../test/agents/agent-run';
import {
  type ProcId,
  descendantsOf,
  describeProcs,
  procsNaming,
  stillRuns,
  waitAllGone,
} from '../../test/support/procs';
import { engineRequest } from '../../test/support/serve';
import { type ActionRecord, pickKind, runAction, runCli, seeded } from './actions';
import type { SoakOptions } from './options';
import { actionFigures, eventLogCheck } from './report';
import { type EngineFigures, engineFigures, SoakRig } from './rig';

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

interface Disruption {
  kind: 'kill-tmux' | 'restart-engine';
  atMs: number;
  ok: boolean;
  ms: number;
  /** restart-engine: SIGTERM to exit, and the new engine's start to its window shown. */
  endMs?: number;
  startMs?: number;
  detail?: string;
  engineBefore?: EngineFigures;
}

/**
 * The soak: the rig up and served with its window open, then for `durationMs` one random action
 * every `actionEveryMs`, the tmux server killed and the engine restarted on their periods; at the
 * end everything is ended as a person would (down, SIGTERM to the engine, the tmux server) and
 * what still runs is listed by pid and by the soak's own socket and homes.
 */
export async function runSoak(opts: SoakOptions, log: (line: string) => void = () => undefined) {
  const rig = new SoakRig(opts.shellSeats);
  const live = new Set<ChildProcess>();
  try {
    await rig.open();
    await rig.startEngine();
    const up = await runCli(rig, ['up', rig.specPath], 300_000, live);
    if (up.outcome !== 'ok') throw new Error(`the soak's rig did not come up: ${JSON.stringify(up)}`);
    await rig.showWindow();
    await sleep(3_000);
    const engineStart = engineFigures(rig.serve!.pid!);
    log(`soak: ${rig.seats.length} seats up, engine pid ${rig.serve!.pid}, window at ${new URL(rig.url!).host}`);
    const { records, disruptions, skipped } = await fireActions(rig, opts, live, log);
    const engineEnd = engineFigures(rig.serve!.pid!);
    const events = await allEvents(rig);
    const left = await endEverything(rig, live);
    return {
      options: opts,
      seats: rig.seats.length,
      ...actionFigures(records),
      skippedTicks: skipped,
      disruptions,
      engine: { start: engineStart, end: engineEnd, restarts: disruptions.filter((d) => d.kind === 'restart-engine') },
      eventLog: eventLogCheck(records, events),
      leftBehind: { count: left.length, processes: describeProcs(left).split('\n').filter(Boolean) },
      windowErrors: rig.pageErrors.slice(0, 20),
      modelRequests: rig.server.requests.length,
    };
  } finally {
    await rig.close();
  }
}

async function fireActions(rig: SoakRig, opts: SoakOptions, live: Set<ChildProcess>, log: (l: string) => void) {
  const rand = seeded(opts.seed);
  const records: ActionRecord[] = [];
  const disruptions: Disruption[] = [];
  const running = new Set<Promise<unknown>>();
  const track = (p: Promise<unknown>) => (running.add(p), p.finally(() => running.delete(p)));
  const t0 = Date.now();
  let nextKill = t0 + opts.killTmuxEveryMs;
  let nextRestart = t0 + opts.restartEngineOffsetMs;
  let restarting = false;
  let inFlight = 0;
  let skipped = 0;
  let n = 0;
  while (Date.now() - t0 < opts.durationMs) {
    const now = Date.now();
    if (now >= nextKill) {
      nextKill += opts.killTmuxEveryMs;
      track(killTmux(rig, now - t0).then((d) => (disruptions.push(d), log(`soak: ${JSON.stringify(d)}`))));
    }
    if (now >= nextRestart && !restarting) {
      nextRestart += opts.restartEngineEveryMs;
      restarting = true;
      track(
        restartEngine(rig, now - t0).then((d) => {
          restarting = false;
          disruptions.push(d);
          log(`soak: ${JSON.stringify(d)}`);
        }),
      );
    }
    if (inFlight < opts.maxInFlight) {
      inFlight++;
      const kind = pickKind(rand);
      track(
        runAction(rig, kind, ++n, rand, opts.actionTimeoutMs, live).then((r) => {
          inFlight--;
          records.push(r);
          if (r.outcome === 'hang' || r.outcome === 'crash') log(`soak: UNANSWERED ${JSON.stringify(r)}`);
        }),
      );
    } else skipped++;
    if (n % 500 === 0) log(`soak: ${n} actions at ${Math.round((Date.now() - t0) / 1000)} s`);
    await sleep(opts.actionEveryMs);
  }
  while (running.size) await Promise.all([...running]);
  return { records, disruptions, skipped };
}

/** `tmux -L <socket> kill-server`, as a script's cleanup or a logout does. */
function killTmux(rig: SoakRig, atMs: number): Promise<Disruption> {
  const t = performance.now();
  return new Promise((resolve) => {
    execFile('tmux', ['-L', rig.socket, 'kill-server'], { timeout: 10_000, env: rig.env }, (err, _o, stderr) => {
      const ms = Math.round(performance.now() - t);
      // No server (the soak's `down` ended it a moment ago) is no failure: there was nothing to kill.
      const ok = !err || /no server running|error connecting/.test(stderr);
      resolve({ kind: 'kill-tmux', atMs, ok, ms, ...(ok ? {} : { detail: `${err?.message} ${stderr}` }) });
    });
  });
}

/** SIGTERM to `rigdesk serve`, then a new one, and the window pointed at it. */
async function restartEngine(rig: SoakRig, atMs: number): Promise<Disruption> {
  const engineBefore = engineFigures(rig.serve!.pid!);
  const t = performance.now();
  const endedMs = await rig.endEngine(30_000);
  if (endedMs === undefined) rig.serve?.kill('SIGKILL');
  const t1 = performance.now();
  try {
    await rig.startEngine();
    await rig.showWindow();
  } catch (e) {
    return { kind: 'restart-engine', atMs, ok: false, ms: Math.round(performance.now() - t), detail: String(e) };
  }
  return {
    kind: 'restart-engine',
    atMs,
    ok: endedMs !== undefined,
    ms: Math.round(performance.now() - t),
    ...(endedMs !== undefined ? { endMs: endedMs } : {}),
    startMs: Math.round(performance.now() - t1),
    ...(endedMs === undefined ? { detail: 'the engine did not end within 30 s of SIGTERM' } : {}),
    ...(engineBefore ? { engineBefore } : {}),
  };
}

/** The whole event log, page by page (`rigdesk events` reads the same log, 10 000 rows a call). */
async function allEvents(rig: SoakRig): Promise<EventRow[]> {
  const info = readEngineInfo(join(rig.j.w.home, 'engine.json'));
  if (!info) throw new Error('no engine.json: the engine is not serving at the end of the soak');
  const out: EventRow[] = [];
  for (;;) {
    const after = out.at(-1)?.seq ?? 0;
    const r = await engineRequest(info, 'events', { afterSeq: after, limit: 10_000 }, 60_000);
    if (r === 'no answer' || !r.ok) throw new Error(`events did not answer: ${JSON.stringify(r)}`);
    out.push(...(r.events as EventRow[]));
    if (r.events.length < 10_000) return out;
  }
}

/**
 * Ends the soak as a person would (`rigdesk down`, SIGTERM to the engine, the tmux server killed)
 * and lists, 5 s later, every process still running that the soak started or that belongs to its
 * rig: by the pids it spawned and their trees, by its socket's name in argv, and by its agents'
 * private homes in their environment. Never by process name.
 */
async function endEverything(rig: SoakRig, live: Set<ChildProcess>): Promise<ProcId[]> {
  const panes = rig.j.w.tmux.tryRun(['list-panes', '-a', '-F', '#{pane_pid}']);
  const panePids = panes.ok ? panes.out.trim().split('\n').filter(Boolean).map(Number) : [];
  const serve = rig.serve?.pid;
  const tree = [
    ...panePids.flatMap((p) => descendantsOf(p)),
    ...(serve ? descendantsOf(serve) : []),
    ...rig.started.flatMap((c) => (c.pid ? descendantsOf(c.pid) : [])),
  ];
  await runCli(rig, ['down', 'soak'], 120_000, live);
  await rig.endEngine(30_000);
  rig.j.w.tmux.tryRun(['kill-server']);
  const homes = Object.values(rig.j.fx).flatMap((f) =>
    ['CLAUDE_CONFIG_DIR', 'CODEX_HOME'].filter((k) => f.env[k]).map((k) => [k, f.env[k]!] as const),
  );
  const mine = (): ProcId[] => {
    const byEnv = homes.flatMap(([k, v]) => pidsWithEnv(k, v)).map((pid) => procOf(pid));
    const spawned = [...rig.started, ...live].flatMap((c) =>
      c.pid && c.exitCode === null && c.signalCode === null ? [procOf(c.pid)] : [],
    );
    const all = [...tree, ...procsNaming(rig.socket), ...byEnv, ...spawned].filter(
      (p): p is ProcId => p !== undefined && stillRuns(p),
    );
    return [...new Map(all.map((p) => [p.pid, p])).values()];
  };
  await waitAllGone(mine(), 5_000);
  return mine();
}

/** The process itself, named by pid and start time (a reused pid is another process). */
function procOf(pid: number): ProcId | undefined {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    const startTime = stat.slice(stat.lastIndexOf(')') + 2).split(' ')[19]!;
    const argv = readFileSync(`/proc/${pid}/cmdline`, 'utf8').split('\0').filter(Boolean);
    return { pid, startTime, argv };
  } catch {
    return undefined;
  }
}
