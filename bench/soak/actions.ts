import { type ChildProcess, spawn } from 'node:child_process';
import { RIGDESK_BIN } from '../../test/support/rig';
import { AGENT_SEATS, RIG, type SoakRig } from './rig';

export const ACTION_KINDS = [
  'up',
  'down',
  'stop',
  'launch',
  'restart',
  'fresh',
  'send',
  'capture',
  'answer',
  'resize',
] as const;
export type ActionKind = (typeof ACTION_KINDS)[number];

/**
 * How often each action is drawn. `down` takes the whole rig (Claude and Codex too) away and `up`
 * brings it back, so they are drawn rarely: a soak spent mostly with no seats proves little.
 */
export const ACTION_WEIGHTS: Record<ActionKind, number> = {
  up: 1,
  down: 0.25,
  stop: 1,
  launch: 2,
  restart: 1,
  fresh: 1,
  send: 4,
  capture: 3,
  answer: 2,
  resize: 2,
};

/**
 * One action's outcome. `answered` is an answer on the contract: ok, or a refusal with a stable
 * code. `hang` (no answer within the timeout) and `crash` (no JSON answer, or ended by a signal)
 * are failures.
 */
export interface ActionRecord {
  n: number;
  kind: ActionKind;
  seat?: string;
  startedAt: number;
  endedAt: number;
  ms: number;
  outcome: 'ok' | 'refused' | 'hang' | 'crash';
  code?: string;
  exit?: number | null;
  detail?: string;
  /** A refusal's message (the first words), to tell one cause of a code from another. */
  message?: string;
  /** What a stop answered it did (removed, already_gone, not_running). */
  stopped?: string;
}

/** A small seeded generator, so a run's sequence of actions can be replayed. */
export function seeded(seed: number): () => number {
  let a = seed >>> 0 || 1;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

export function pickKind(rand: () => number): ActionKind {
  const total = ACTION_KINDS.reduce((s, k) => s + ACTION_WEIGHTS[k], 0);
  let x = rand() * total;
  for (const k of ACTION_KINDS) {
    x -= ACTION_WEIGHTS[k];
    if (x < 0) return k;
  }
  return 'capture';
}

interface CliAnswer {
  outcome: ActionRecord['outcome'];
  code?: string;
  exit?: number | null;
  json?: {
    ok?: boolean;
    code?: string;
    message?: string;
    prompts?: { seat: string; fingerprint: string }[];
    stopped?: { outcome?: string };
  };
  detail?: string;
}

/**
 * The real built CLI with `--json`, as a person runs it; its pid is kept in `live` while it runs
 * (so the end can tell a CLI left running). No answer in `timeoutMs` is a hang: it is ended by pid.
 */
export function runCli(rig: SoakRig, args: string[], timeoutMs: number, live: Set<ChildProcess>): Promise<CliAnswer> {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, [RIGDESK_BIN, ...args, '--json'], {
      env: rig.env,
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    live.add(child);
    let out = '';
    let err = '';
    child.stdout!.on('data', (d: Buffer) => (out += d.toString()));
    child.stderr!.on('data', (d: Buffer) => (err += d.toString()));
    let hung = false;
    const timer = setTimeout(() => {
      hung = true;
      child.kill('SIGKILL');
    }, timeoutMs);
    child.on('close', (exit, signal) => {
      clearTimeout(timer);
      live.delete(child);
      if (hung) return resolve({ outcome: 'hang', exit, detail: `no answer in ${timeoutMs} ms: ${args.join(' ')}` });
      let json: CliAnswer['json'];
      try {
        json = JSON.parse(out);
      } catch {
        json = undefined;
      }
      if (json?.ok === true) return resolve({ outcome: 'ok', exit, json });
      if (json?.ok === false && typeof json.code === 'string')
        return resolve({ outcome: 'refused', code: json.code, exit, json });
      resolve({
        outcome: 'crash',
        exit,
        detail: `${args.join(' ')}: exit ${exit ?? signal}; ${(out + err).slice(0, 400)}`,
      });
    });
  });
}

const pick = <T>(rand: () => number, xs: readonly T[]): T => xs[Math.floor(rand() * xs.length)]!;

const SIZES = [
  { width: 1280, height: 800 },
  { width: 1920, height: 1080 },
  { width: 1024, height: 700 },
  { width: 1440, height: 900 },
];

/** Runs one action of `kind` on a random seat; never throws. */
export async function runAction(
  rig: SoakRig,
  kind: ActionKind,
  n: number,
  rand: () => number,
  timeoutMs: number,
  live: Set<ChildProcess>,
): Promise<ActionRecord> {
  const startedAt = Date.now();
  const t0 = performance.now();
  const seat = kind === 'up' || kind === 'down' || kind === 'resize' ? undefined : pick(rand, rig.seats);
  let a: CliAnswer;
  let target = seat;
  try {
    if (kind === 'resize') a = await resize(rig, pick(rand, SIZES), timeoutMs);
    else if (kind === 'answer') {
      const r = await answerPrompt(rig, rand, timeoutMs, live);
      a = r.answer;
      target = r.seat;
    } else a = await runCli(rig, argsOf(rig, kind, seat, n, rand), timeoutMs, live);
  } catch (e) {
    a = { outcome: 'crash', detail: String(e).slice(0, 400) };
  }
  const endedAt = Date.now();
  return {
    n,
    kind,
    ...(target ? { seat: target } : {}),
    startedAt,
    endedAt,
    ms: Math.round(performance.now() - t0),
    outcome: a.outcome,
    ...(a.code ? { code: a.code } : {}),
    ...(a.exit !== undefined ? { exit: a.exit } : {}),
    ...(a.detail ? { detail: a.detail } : {}),
    ...(a.json?.stopped?.outcome ? { stopped: a.json.stopped.outcome } : {}),
    ...(a.outcome === 'refused' && a.json?.message ? { message: a.json.message.slice(0, 160) } : {}),
  };
}

function argsOf(rig: SoakRig, kind: ActionKind, seat: string | undefined, n: number, rand: () => number): string[] {
  const s = seat!;
  switch (kind) {
    case 'up':
      return ['up', rig.specPath];
    case 'down':
      return ['down', RIG];
    case 'stop':
      return ['stop', s];
    case 'launch':
      return ['launch', s];
    case 'restart':
      return ['restart', s, '--keep-conversation'];
    case 'fresh':
      return ['fresh', s, '--reason', `soak ${n}`];
    case 'capture':
      return ['capture', s, '--lines', '50'];
    default:
      return ['send', s, sendText(s, n, rand)];
  }
}

/** A shell seat echoes; an agent seat is greeted, or asked to run a command (a permission prompt). */
function sendText(seat: string, n: number, rand: () => number): string {
  if (!(AGENT_SEATS as readonly string[]).includes(seat)) return `echo soak-${n}`;
  return rand() < 0.5 ? `hello soak ${n}` : `RUN: echo ${n} > soak-${n}.txt`;
}

/** `rigdesk prompts`, then `rigdesk answer` approving one shown (or, with none shown, an agent seat). */
async function answerPrompt(
  rig: SoakRig,
  rand: () => number,
  timeoutMs: number,
  live: Set<ChildProcess>,
): Promise<{ answer: CliAnswer; seat: string }> {
  const listed = await runCli(rig, ['prompts'], timeoutMs, live);
  if (listed.outcome !== 'ok') return { answer: listed, seat: pick(rand, AGENT_SEATS) };
  const shown = listed.json?.prompts ?? [];
  if (shown.length === 0) {
    const seat = pick(rand, AGENT_SEATS);
    return { answer: await runCli(rig, ['answer', seat, 'approve', '--reason', 'soak'], timeoutMs, live), seat };
  }
  const p = pick(rand, shown);
  const args = ['answer', p.seat, 'approve', `--prompt=${p.fingerprint}`, '--reason', 'soak'];
  return { answer: await runCli(rig, args, timeoutMs, live), seat: p.seat };
}

/** The window resized as a person drags it: answered once the page has laid itself out again. */
async function resize(rig: SoakRig, size: { width: number; height: number }, timeoutMs: number): Promise<CliAnswer> {
  const drag = async (): Promise<CliAnswer> => {
    // While the window is pointed at a restarted engine it is between pages: the drag waits.
    await rig.windowReady;
    const page = rig.page;
    if (!page) return { outcome: 'refused', code: 'NO_WINDOW' };
    await page.setViewportSize(size);
    await page.evaluate(() => new Promise((r) => requestAnimationFrame(() => r(window.innerWidth))));
    return { outcome: 'ok' };
  };
  // An engine restart can point the window at the new engine during the drag (the page it was
  // laying out is gone): the new page is laid out at that size instead.
  const done = drag().catch((e: Error) => {
    if (!/context was destroyed|navigat/i.test(e.message)) throw e;
    return drag();
  });
  const late = new Promise<CliAnswer>((r) =>
    setTimeout(() => r({ outcome: 'hang', detail: `window resize: no layout in ${timeoutMs} ms` }), timeoutMs),
  );
  return Promise.race([done, late]);
}
