import { existsSync, mkdirSync, readFileSync, realpathSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { performance } from 'node:perf_hooks';
import { expect, it } from 'vitest';
import { machineFacts } from './machine';
import { profiled } from './profile';
import { restore } from '../src/main/engine/restore/run';
import { upRig } from '../src/main/engine/services/up';
import { RigWorld } from '../test/support/rig';
import { waitFor } from '../test/support/tmux';
import { standInRigYaml, standInTranscript, writeClaudeStandIn } from '../test/restore/standin-claude';

/**
 * Restore bench (issue 5): N seats restored after a simulated reboot (the tmux server killed),
 * with the resumable Claude STAND-IN (test/restore/standin-claude.ts: real argv, real transcript
 * files, real "conversation missing" report) on a private tmux server. Compares the wall time of
 * one N-seat restore with the slowest of single-seat restores measured the same way. Seats
 * restore in parallel, so the target is "within 2 s of the slowest seat", not their sum. Both
 * include the resume proof's wait: argv must name the id with no missing report and no dialog for
 * 1.5 s once the screen shows the agent idle or working, and for 4 s (quietMs) when the screen shows
 * neither, as the stand-in's never does. The dialog check is one batched capture per tick for all
 * seats (sharedObserver), not one per seat.
 *
 * Run: npx vitest run --config bench/vitest.bench.config.mts bench/restore.bench.ts
 * Env: RDBENCH_SEATS=20  RDBENCH_SINGLE_REPS=3  RDBENCH_REPS=3  RDBENCH_STANDIN=shell (defaults shown). At RDBENCH_SEATS=200
 * or more, the N-seat median is also judged against issue 37's 30 s. RDBENCH_PROFILE=1 profiles the
 * N-seat restores (bench/profile.ts; a profiled run's times are not the ones to quote).
 */

const SEATS = numEnv('RDBENCH_SEATS', 20);
const SINGLE_REPS = numEnv('RDBENCH_SINGLE_REPS', 3);
const REPS = numEnv('RDBENCH_REPS', 3);
const TARGET_MARGIN_MS = 2000;
const PROFILE = process.env.RDBENCH_PROFILE === '1';
/**
 * The stand-in: `shell` (the default) keeps its bash blocked on a FIFO and draws Claude's idle
 * screen, as the real one does when a resume lands; `node` keeps a node process (as Claude's is)
 * and draws nothing, so each proof waits its full quiet spell. At 200 seats node's own start (about
 * 137 ms of CPU each on a 2-core VM, 27 s of the two cores) is most of the wall time and none of it
 * is the restore's.
 */
const STANDIN = process.env.RDBENCH_STANDIN === 'node' ? 'node' : 'shell';
/** Issue 37: 200 seats restored after a killed server in under 30 s (judged at 200 seats or more). */
const TARGET_200_MS = 30_000;

async function rebootedWorld(n: number): Promise<RigWorld> {
  const w = new RigWorld();
  mkdirSync(join(w.root, 'work'), { recursive: true });
  const work = realpathSync(join(w.root, 'work'));
  const bin = writeClaudeStandIn(join(w.root, 'bin'), {
    hold: STANDIN,
    idleScreen: STANDIN === 'shell',
  });
  const members = Array.from({ length: n }, (_, i) => `s${i}`);
  const spec = w.spec('rig.yaml', standInRigYaml('bench', bin, w.root, members));
  const e = w.engine();
  const up = await upRig(e, spec);
  if (!up.ok) throw new Error(`up failed: ${up.message}`);
  for (const s of e.store.rigs.seats('bench'))
    await waitFor(() => existsSync(standInTranscript(join(w.root, `cfg-${s.member}`), work, s.conversationId!)), {
      what: 'transcript',
    });
  // A reboot leaves no process behind: wait for every agent to go, or the guard rightly refuses.
  const agents = (await e.roster()).agents.filter((a) => a.pane?.server === e.ownKey).map((a) => a.pid);
  w.tmux.kill();
  await waitFor(() => agents.every((pid) => !e.deps.proc.read(pid) || e.deps.proc.read(pid)!.argv.length === 0), {
    what: 'agents gone',
    timeoutMs: 20_000,
  });
  return w;
}

/**
 * Where a restore's time went, from the fence's own events: reserved (custody read done), helper
 * invoked (the create sent), seat.launch (the create answered). Creates are tmux's; the gaps
 * between waves are the custody reads; the tail after the last create is the proofs' wait.
 */
function phases(e: ReturnType<RigWorld['engine']>, afterSeq: number, t0: number): string {
  const at = (kind: string) => e.store.events.list({ kind, afterSeq }).map((r) => ({ seat: r.seat, at: r.at }));
  const sent = new Map(at('fence.helper_invoked').map((r) => [r.seat, r.at]));
  const launched = at('seat.launch');
  const reserved = at('fence.reserved').map((r) => r.at);
  const creates = launched.flatMap((r) => (sent.has(r.seat) ? [r.at - sent.get(r.seat)!] : [])).sort((a, b) => a - b);
  const med = creates[Math.floor(creates.length / 2)] ?? 0;
  const p90 = creates[Math.floor(creates.length * 0.9)] ?? 0;
  const last = Math.max(...launched.map((r) => r.at));
  return `first reserved +${Math.min(...reserved) - t0} ms, last create answered +${last - t0} ms, create sent→answered median ${med} ms p90 ${p90} ms`;
}

async function timedRestore(
  n: number,
): Promise<{ ms: number; outcome: string; resumed: number; reads: number; phases: string }> {
  const w = await rebootedWorld(n);
  try {
    const e = w.engine();
    // Roster reads the restore began: callers joining one read (Engine.sharedRoster) get one promise.
    const reads = new Set<Promise<unknown>>();
    const ports = {
      ...e.ports,
      roster: () => {
        const p = e.ports.roster();
        reads.add(p);
        return p;
      },
    };
    const idle0 = idleMs();
    const cpu0 = process.cpuUsage();
    const afterSeq = e.store.events.list({ newest: 1 })[0]?.seq ?? 0;
    const wall0 = Date.now();
    const t0 = performance.now();
    let r!: Awaited<ReturnType<typeof restore>>;
    const run = async () => {
      r = await restore(ports, 'bench');
    };
    if (PROFILE && n > 1) await profiled(`restore-${n}`, n, run);
    else await run();
    const ms = performance.now() - t0;
    if (!r.ok) throw new Error(`restore failed: ${r.message}`);
    const agentsMs = await agentsCpuMs(e);
    if (r.seats.some((s) => s.outcome !== 'resumed'))
      log(JSON.stringify(r.seats.filter((s) => s.outcome !== 'resumed').slice(0, 2)));
    return {
      ms,
      outcome: r.outcome,
      resumed: r.seats.filter((s) => s.outcome === 'resumed').length,
      reads: reads.size,
      phases: `${phases(e, afterSeq, wall0)}, end +${Math.round(ms)} ms; tmux server on CPU ${serverCpuMs(w)} ms, agents (with their panes' shells) ${agentsMs} ms, engine ${cpuMs(process.cpuUsage(cpu0))} ms, machine idle ${Math.round(idleMs() - idle0)} ms of ${machineFacts().cores * Math.round(ms)}`,
    };
  } finally {
    w.cleanup();
  }
}

it(`restore: ${SEATS} stand-in seats after a reboot vs the slowest single seat`, async () => {
  const machine = {
    ...machineFacts(),
  };
  log(
    `restore bench: ${SEATS} seats x ${REPS}, single seat x ${SINGLE_REPS}, stand-ins hold ${STANDIN}; machine: ${machine.cpuModel}, ${machine.cores} cores, node ${machine.node}, ${machine.tmux}, load ${machine.loadavgAtStart.map((l) => l.toFixed(2)).join(' ')}`,
  );
  const single: number[] = [];
  for (let i = 0; i < SINGLE_REPS; i++) {
    const r = await timedRestore(1);
    expect(r.resumed).toBe(1);
    single.push(r.ms);
    log(`  single seat #${i + 1}: ${r.ms.toFixed(0)} ms (${r.outcome})`);
  }
  const many: number[] = [];
  const rosterReads: number[] = [];
  for (let i = 0; i < REPS; i++) {
    const r = await timedRestore(SEATS);
    expect(r.resumed).toBe(SEATS);
    many.push(r.ms);
    rosterReads.push(r.reads);
    log(
      `  ${SEATS} seats #${i + 1}: ${r.ms.toFixed(0)} ms (${r.outcome}, ${r.resumed} resumed, ${r.reads} roster reads)`,
    );
    log(`    ${r.phases}`);
  }
  const slowestSingle = Math.max(...single);
  const medianMany = [...many].sort((a, b) => a - b)[Math.floor(many.length / 2)]!;
  const pass = medianMany - slowestSingle <= TARGET_MARGIN_MS;
  const pass200 = SEATS >= 200 ? medianMany < TARGET_200_MS : undefined;
  if (pass200 !== undefined)
    log(
      `${SEATS}-seat restore median ${(medianMany / 1000).toFixed(1)} s — target under ${TARGET_200_MS / 1000} s: ${pass200 ? 'PASS' : 'FAIL'}`,
    );
  log(
    `slowest single seat ${slowestSingle.toFixed(0)} ms; ${SEATS}-seat restore median ${medianMany.toFixed(0)} ms (+${(medianMany - slowestSingle).toFixed(0)} ms; sum of seats would be ~${((slowestSingle * SEATS) / 1000).toFixed(1)} s) — target within ${TARGET_MARGIN_MS} ms: ${pass ? 'PASS' : 'MISS'}`,
  );
  const dir = resolve(__dirname, 'results');
  mkdirSync(dir, { recursive: true });
  const file = join(
    dir,
    `restore-${new Date()
      .toISOString()
      .replace(/:/g, '-')
      .replace(/\.\d+Z$/, 'Z')}.json`,
  );
  writeFileSync(
    file,
    `${JSON.stringify(
      {
        bench: 'restore',
        at: new Date().toISOString(),
        machine,
        seats: SEATS,
        standIn: STANDIN,
        singleMs: single.map(Math.round),
        manyMs: many.map(Math.round),
        rosterReads,
        slowestSingleMs: Math.round(slowestSingle),
        medianManyMs: Math.round(medianMany),
        targetMarginMs: TARGET_MARGIN_MS,
        pass,
        ...(pass200 === undefined ? {} : { target200Ms: TARGET_200_MS, pass200 }),
      },
      null,
      2,
    )}\n`,
  );
  log(`results: ${file}`);
});

/** The restored server started with the restore: its whole time on a CPU is the restore's (schedstat: ns). */
function serverCpuMs(w: RigWorld): number {
  const pid = w.tmux.serverPid();
  if (!pid) return Number.NaN;
  return Math.round(Number(readFileSync(`/proc/${pid}/schedstat`, 'utf8').split(' ')[0]) / 1e6);
}

/** The restored agents' time on a CPU, with what they ran and waited for before (their start's programs) and their panes' shells. */
async function agentsCpuMs(e: ReturnType<RigWorld['engine']>): Promise<number> {
  const ticks = (pid: number) => {
    try {
      const f = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]!.split(' ');
      return Number(f[11]) + Number(f[12]) + Number(f[13]) + Number(f[14]);
    } catch {
      return 0;
    }
  };
  const r = await e.roster();
  const agents = new Set(r.agents.filter((a) => a.pane?.server === e.ownKey).map((a) => a.pid));
  const shells = r.panes.filter((p) => p.server === e.ownKey && !agents.has(p.panePid)).map((p) => p.panePid);
  const all = [...agents, ...shells];
  return all.reduce((sum, pid) => sum + ticks(pid), 0) * 10;
}

function cpuMs(u: NodeJS.CpuUsage): number {
  return Math.round((u.user + u.system) / 1000);
}

/** Every core's idle time so far (/proc/stat, in clock ticks of 10 ms). */
function idleMs(): number {
  const cpu = readFileSync('/proc/stat', 'utf8').split('\n')[0]!.trim().split(/\s+/);
  return (Number(cpu[4]) + Number(cpu[5])) * 10;
}

function log(s: string): void {
  console.log(s);
}
function numEnv(name: string, dflt: number): number {
  const v = Number(process.env[name]);
  return Number.isInteger(v) && v > 0 ? v : dflt;
}
