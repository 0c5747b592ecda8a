/**
 * The engine core's answers against their schemas, on a real engine: a private tmux server, a real
 * SQLite store, shell seats, and (for custody) the real Claude Code CLI against the fake model server.
 * Every method is called through `dispatch`, typed by its name, and its answer strict-parsed with
 * `expectAnswer`, variants and refusals included; `ps` also through the built CLI's `--json`.
 */
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import type { z } from 'zod';
import { dispatch } from '../../src/main/engine/api';
import type { Engine } from '../../src/main/engine/engine';
import type { Exec } from '../../src/main/engine/deps';
import type { AnswerOf, ENGINE_REQUESTS, PsRow } from '../../src/shared/contract';
import type { Ok } from '../../src/shared/errors';
import { CLAUDE_BIN } from '../agents/claude-fixture';
import type { FakeModelServer } from '../agents/fake-model-server';
import { JourneyWorld, LOCAL_ADDRESSES, requireCli, startServer, waitForExit } from '../journeys/support';
import { RigWorld, shellRigYaml } from '../support/rig';
import { waitFor } from '../support/tmux';
import { expectAnswer, expectFailure } from './support';

type EngineMethod = keyof typeof ENGINE_REQUESTS;
type Params<M extends EngineMethod> = z.input<(typeof ENGINE_REQUESTS)[M]>;

/** One request through `dispatch`, its answer strict-parsed against the contract, and returned typed. */
async function answer<M extends EngineMethod>(engine: Engine, method: M, params: Params<M>): Promise<Ok<AnswerOf<M>>> {
  const r = await dispatch(engine, method, params);
  expectAnswer(method, r);
  if (!r.ok) throw new Error(`${method} failed: ${r.code}: ${r.message}`);
  return r;
}

/** One request that must be refused with `code`, its failure parsed as the shared failure shape. */
async function refusal<M extends EngineMethod>(engine: Engine, method: M, params: Params<M>, code: string) {
  const r = await dispatch(engine, method, params);
  expectFailure(method, r, code);
  return r;
}

function rowOf(ps: Ok<AnswerOf<'ps'>>, seat: string): PsRow {
  const row = ps.seats.find((s) => s.seat === seat);
  if (!row) throw new Error(`no row for ${seat}: ${JSON.stringify(ps.seats)}`);
  return row;
}

const LEAD = 'lead@demo';
const WORKER = 'worker@demo';

interface ShellWorld {
  w: RigWorld;
  engine: Engine;
  spec: string;
}

/** The rig up, each seat's shell at its prompt (idle: bash itself in front). */
async function upAndIdle(s: ShellWorld): Promise<Ok<AnswerOf<'up'>>> {
  const up = await answer(s.engine, 'up', { spec: s.spec });
  await waitFor(
    async () => {
      const ps = await answer(s.engine, 'ps', {});
      return ps.seats.every((r) => r.activity === 'idle');
    },
    { what: 'both shell seats idle' },
  );
  return up;
}

/** The newest event of `kind` for the seat, from the `events` answer. */
async function lastEvent(engine: Engine, seat: string, kind: string) {
  const ev = await answer(engine, 'events', { seat });
  const e = ev.events.filter((x) => x.kind === kind).at(-1);
  if (!e) throw new Error(`no ${kind} event for ${seat}`);
  return e;
}

/** Every engine method, with its variants: a method without a scenario does not compile. */
const SCENARIOS: Record<EngineMethod, (s: ShellWorld) => Promise<void>> = {
  up: async (s) => {
    const first = await upAndIdle(s);
    expect(first.seats.map((x) => x.outcome)).toEqual(['launched', 'launched']);
    await answer(s.engine, 'stop', { seat: WORKER });
    const again = await answer(s.engine, 'up', { spec: s.spec });
    expect(again.seats.map((x) => [x.seat, x.outcome])).toEqual([
      [LEAD, 'already_running'],
      [WORKER, 'launched'],
    ]);
    // A seat that cannot launch fails the whole `up`, naming it, with every seat in the evidence.
    const yaml = shellRigYaml('bad', ['ok', 'x']).replace(
      /(id: x, runtime: shell, cwd: \., command: )bash/,
      '$1no-such-program-rd',
    );
    const refused = await refusal(s.engine, 'up', { spec: s.w.spec('bad.yaml', yaml) }, 'RUNTIME_NOT_INSTALLED');
    expect(refused.ok ? undefined : refused.evidence).toMatchObject({
      rig: 'bad',
      seats: [
        { seat: 'ok@bad', outcome: 'launched' },
        { seat: 'x@bad', outcome: 'refused', code: 'RUNTIME_NOT_INSTALLED' },
      ],
    });
    await refusal(s.engine, 'up', { spec: s.w.spec('none.yaml', 'name: [') }, 'SPEC_INVALID');
  },

  ps: async (s) => {
    const up = await upAndIdle(s);
    await answer(s.engine, 'stop', { seat: WORKER });
    const ps = await answer(s.engine, 'ps', {});
    const lead = rowOf(ps, LEAD);
    const worker = rowOf(ps, WORKER);
    expect(lead).toMatchObject({ state: 'running', runtime: 'shell' });
    // A shell seat writes no conversation: no custody to report, running or stopped.
    expect('custody' in lead, JSON.stringify(lead)).toBe(false);
    expect('custody' in worker).toBe(false);
    // No activity monitor runs here: the state last changed at the launch, and at the stop.
    expect(lead.stateSince).toBe((await lastEvent(s.engine, LEAD, 'seat.launch')).at);
    expect(worker).toMatchObject({ state: 'stopped', stoppedOnPurpose: true });
    expect(worker.stateSince).toBe((await lastEvent(s.engine, WORKER, 'seat.stop')).at);
    const launchedPane = up.seats[0]?.outcome === 'launched' ? up.seats[0].launched.paneId : undefined;
    expect(lead.paneId).toBe(launchedPane);
    const filtered = await answer(s.engine, 'ps', { rig: 'demo', all: true });
    expect(filtered.seats).toHaveLength(2);
    expect(filtered.hosts).toEqual([]);
    expect((await answer(s.engine, 'ps', { rig: 'other' })).seats).toEqual([]);
    // The CLI prints the same answer as JSON.
    for (const args of [
      ['ps', '--json'],
      ['ps', '--all', '--rig', 'demo', '--json'],
    ]) {
      const cli = await s.w.cli(args);
      expect(cli.code, cli.stderr).toBe(0);
      expectAnswer('ps', cli.json);
      expect(cli.json.seats.map((r: PsRow) => [r.seat, r.state])).toEqual([
        [LEAD, 'running'],
        [WORKER, 'stopped'],
      ]);
    }
  },

  launch: async (s) => {
    await upAndIdle(s);
    await answer(s.engine, 'stop', { seat: LEAD });
    const l = await answer(s.engine, 'launch', { seat: LEAD, fresh: true });
    expect(l.launched).toMatchObject({ seat: LEAD, mode: 'fresh', runtime: 'shell' });
    expect(l.launched.attach.slice(0, 3)).toEqual(['tmux', '-L', s.w.tmux.socketName]);
    await refusal(s.engine, 'launch', { seat: LEAD }, 'SEAT_ALREADY_RUNNING');
    await refusal(s.engine, 'launch', { seat: 'nobody@demo' }, 'SEAT_NOT_FOUND');
  },

  stop: async (s) => {
    await upAndIdle(s);
    const removed = await answer(s.engine, 'stop', { seat: LEAD });
    expect(removed.stopped).toMatchObject({ seat: LEAD, outcome: 'removed' });
    const again = await answer(s.engine, 'stop', { seat: LEAD });
    expect(again.stopped).toEqual({ seat: LEAD, outcome: 'not_running' });
    // Its session ended behind the engine's back: the stop finds it gone and says why.
    const ps = await answer(s.engine, 'ps', {});
    s.w.tmux.run(['kill-session', '-t', rowOf(ps, WORKER).sessionId!]);
    const gone = await answer(s.engine, 'stop', { seat: WORKER });
    expect(gone.stopped).toMatchObject({ seat: WORKER, outcome: 'already_gone', why: expect.any(String) });
    await refusal(s.engine, 'stop', { seat: 'nobody@demo' }, 'SEAT_NOT_FOUND');
  },

  down: async (s) => {
    await upAndIdle(s);
    await answer(s.engine, 'stop', { seat: WORKER });
    const down = await answer(s.engine, 'down', { rig: 'demo' });
    expect(down.seats.map((x) => [x.seat, x.outcome])).toEqual([
      [LEAD, 'removed'],
      [WORKER, 'not_running'],
    ]);
    await refusal(s.engine, 'down', { rig: 'nothing' }, 'RIG_NOT_FOUND');
  },

  send: async (s) => {
    await upAndIdle(s);
    const sent = await answer(s.engine, 'send', { seat: LEAD, text: 'sleep 30' });
    // A plain program's screen is not read: delivered, not verified.
    expect(sent.sent).toMatchObject({ seat: LEAD, status: 'delivered', chars: 8, verified: false, warnings: [] });
    await waitFor(async () => rowOf(await answer(s.engine, 'ps', {}), LEAD).activity === 'working', {
      what: 'the seat busy with sleep',
    });
    const held = await refusal(s.engine, 'send', { seat: LEAD, text: 'echo x' }, 'SEND_HELD');
    expect(held.ok ? undefined : held.evidence).toMatchObject({ status: 'held', why: 'working' });
    const forced = await answer(s.engine, 'send', {
      seat: LEAD,
      text: 'echo forced',
      force: true,
      reason: 'contract test',
    });
    expect(forced.sent.warnings).toEqual(['typed over working by request: contract test']);
    await refusal(s.engine, 'send', { seat: LEAD, text: 'x', force: true }, 'BAD_USAGE');
  },

  capture: async (s) => {
    await upAndIdle(s);
    await answer(s.engine, 'send', { seat: LEAD, text: 'echo contract-$((40+2))' });
    const cap = await waitFor(
      async () => {
        const c = await answer(s.engine, 'capture', { seat: LEAD, lines: 10 });
        return /^contract-42$/m.test(c.text) ? c : undefined;
      },
      { what: 'the echo on screen' },
    );
    expect(cap).toMatchObject({ seat: LEAD, paneId: expect.stringMatching(/^%\d+$/) });
    await answer(s.engine, 'stop', { seat: WORKER });
    await refusal(s.engine, 'capture', { seat: WORKER }, 'SEAT_NOT_RUNNING');
  },

  attach: async (s) => {
    await upAndIdle(s);
    const a = await answer(s.engine, 'attach', { seat: LEAD });
    expect(a).toMatchObject({ seat: LEAD, host: 'local', server: `L:${s.w.tmux.socketName}` });
    expect(a.argv).toEqual(['tmux', '-L', s.w.tmux.socketName, 'attach-session', '-t', a.sessionId]);
    await answer(s.engine, 'stop', { seat: LEAD });
    await refusal(s.engine, 'attach', { seat: LEAD }, 'SEAT_NOT_RUNNING');
  },

  doctor: async (s) => {
    const d = await answer(s.engine, 'doctor', {});
    expect(d.checks.find((c) => c.check === 'tmux')).toMatchObject({ ok: true });
    expect(d.checks.find((c) => c.check === 'database')).toMatchObject({ ok: true });
    // A forced fault: no program can be run, so tmux is missing and doctor fails, listing its checks.
    const noExec: Exec = async () => ({
      code: null,
      signal: null,
      stdout: '',
      stderr: '',
      timedOut: false,
      spawnError: 'ENOENT (forced by the test)',
    });
    const broken = await refusal(s.w.engine({ exec: noExec }), 'doctor', {}, 'INTERNAL');
    expect(broken.ok ? undefined : broken.evidence).toMatchObject({
      checks: expect.arrayContaining([expect.objectContaining({ check: 'tmux', ok: false })]),
    });
  },

  events: async (s) => {
    await upAndIdle(s);
    const all = await answer(s.engine, 'events', {});
    expect(all.events.map((e) => e.kind)).toEqual(expect.arrayContaining(['rig.up', 'seat.launch']));
    const rigUp = all.events.find((e) => e.kind === 'rig.up')!;
    expect(rigUp).toMatchObject({ rig: 'demo', seat: null, data: { specPath: s.spec } });
    const lead = await answer(s.engine, 'events', { seat: LEAD, rig: 'demo', limit: 2 });
    expect(lead.events).toHaveLength(2);
    expect(lead.events.every((e) => e.seat === LEAD)).toBe(true);
    const after = await answer(s.engine, 'events', { afterSeq: all.events.at(-1)!.seq });
    expect(after.events).toEqual([]);
  },
};

describe('every engine answer parses against its schema (real tmux, real SQLite, shell seats)', () => {
  let s: ShellWorld;
  beforeEach(() => {
    const w = new RigWorld();
    s = { w, engine: w.engine(), spec: w.spec('rig.yaml', shellRigYaml('demo', ['lead', 'worker'])) };
  });
  afterEach(() => s.w.cleanup());

  for (const [method, run] of Object.entries(SCENARIOS)) {
    it(method, () => run(s), 90_000);
  }
});

const SEAT = 'lead@cus';

describe('ps custody and stateSince with the real Claude Code CLI (fake model server)', () => {
  const installed = requireCli('claude-code');
  let server: FakeModelServer;
  let closed: number;
  let j: JourneyWorld | undefined;
  beforeAll(async () => {
    ({ server, closed } = await startServer());
  });
  afterEach(async () => {
    await j?.cleanup();
  });
  afterAll(async () => {
    await server?.close();
    if (server && installed())
      expect(server.requests.filter((r) => !LOCAL_ADDRESSES.includes(r.remoteAddress))).toEqual([]);
  });

  it('this_seat while it runs, none once stopped, elsewhere (with its pid) while another claude resumes it; launch then refused, and resumes once that one ends', async () => {
    const w = new JourneyWorld(server, closed, ['claude-code']);
    j = w;
    expectAnswer('up', (await w.up('cus', [{ id: 'lead', runtime: 'claude-code' }])).json);
    const { row: first } = await w.seen(SEAT, { activity: 'idle' });
    const X = first.conversationId!;
    const engine = w.w.engine();
    const running = rowOf(await answer(engine, 'ps', {}), SEAT);
    expect(running.custody).toEqual({ writer: 'this_seat' });
    expect(running.stateSince).toBeGreaterThanOrEqual((await lastEvent(engine, SEAT, 'seat.launch')).at);
    // A row with the token fields parses too, once the seat has answered a prompt whose usage the
    // fake server names (Claude Code records no window: the model catalog's million gives 0.1 %).
    const sent = await w.cli(['send', SEAT, 'count USAGE:1200:34:5:6', '--verify', '--json']);
    expect(sent.json, sent.stdout + sent.stderr).toMatchObject({ ok: true });
    const counted = await waitFor(
      async () => {
        const r = rowOf(await answer(engine, 'ps', {}), SEAT);
        return r.tokensOut !== undefined ? r : undefined;
      },
      { timeoutMs: 45_000, what: 'the seat with its tokens in ps' },
    );
    expect(counted).toMatchObject({ tokensIn: 1200 + 5 + 6, tokensOut: 34 });
    expect(counted.contextPct).toBe(0.1);

    expect((await answer(engine, 'stop', { seat: SEAT })).stopped.outcome).toBe('removed');
    await waitForExit(running.pid!, 15_000);
    const stopped = rowOf(await answer(engine, 'ps', {}), SEAT);
    expect(stopped).toMatchObject({ state: 'stopped', conversationId: X, custody: { writer: 'none' } });
    expect(stopped.stateSince).toBe((await lastEvent(engine, SEAT, 'seat.stop')).at);

    // A person resumes X by hand on a tmux server of their own.
    const hand = w.otherTmux();
    const pane = hand.newSession('mine', [CLAUDE_BIN, '--resume', X], { cwd: w.dir(), env: w.envOf('claude-code') });
    const owned = await waitFor(
      async () => {
        const ps = await answer(engine, 'ps', { all: true });
        const row = rowOf(ps, SEAT);
        const other = ps.others.find((o) => o.paneId === pane.paneId && o.conversationId === X);
        return row.custody?.writer === 'elsewhere' && other ? { row, other } : undefined;
      },
      { timeoutMs: 45_000, what: 'the seat reading elsewhere while the hand claude has X' },
    );
    expect(owned.row.custody).toEqual({
      writer: 'elsewhere',
      pid: owned.other.pid,
      paneId: pane.paneId,
      server: owned.other.server,
    });
    // A server Rigdesk does not own is named by its socket's path, as the roster found it.
    expect(owned.other.server).toMatch(new RegExp(`^S:/.*/${hand.socketName}$`));
    const cli = await w.cli(['ps', '--all', '--json']);
    expectAnswer('ps', cli.json);
    expect(cli.json.seats[0].custody).toEqual(owned.row.custody);
    await refusal(engine, 'launch', { seat: SEAT }, 'CONVERSATION_LIVE_ELSEWHERE');

    await w.endTestOthers();
    await waitForExit(owned.other.pid, 15_000);
    await waitFor(async () => rowOf(await answer(engine, 'ps', {}), SEAT).custody?.writer === 'none', {
      what: 'custody back to none once the hand claude ended',
    });
    const resumed = await answer(engine, 'launch', { seat: SEAT });
    expect(resumed.launched).toMatchObject({ mode: 'resume', conversationId: X, runtime: 'claude-code' });
    const back = await w.seen(SEAT, { activity: 'idle' });
    expect(rowOf(await answer(engine, 'ps', {}), SEAT).custody, JSON.stringify(back.row)).toEqual({
      writer: 'this_seat',
    });
  }, 240_000);
});
