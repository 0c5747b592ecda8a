/**
 * Every RESTORE method's answer parses against the schema the contract declares for it, on a real
 * engine (an in-process Engine over a real SQLite file and a private tmux server), with its
 * variants: `--plan` and real runs, each seat outcome the world below can produce, decisions open
 * and answered, and refusals as failures. The agent seats are STAND-IN Claude programs
 * (test/restore/standin-claude.ts) so that restore can resume, roll back, ask and fork without a
 * model; the rest are shell seats.
 */
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, realpathSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { z } from 'zod';
import { dispatch } from '../../src/main/engine/api';
import type { Engine } from '../../src/main/engine/engine';
import type { AnswerOf, Method, REQUESTS, RESTORE_REQUESTS } from '../../src/shared/contract';
import { standInTranscript, writeClaudeStandIn } from '../restore/standin-claude';
import { RigWorld } from '../support/rig';
import { standInArgv } from '../support/standin';
import { TestTmux, waitFor } from '../support/tmux';
import { expectAnswer, expectFailure } from './support';

function tmuxMissing(): string | undefined {
  if (spawnSync('tmux', ['-V']).status === 0) return undefined;
  const why = 'no tmux on the PATH (apt-get install -y tmux)';
  if (process.env.CI) throw new Error(`CI must install tmux: ${why}`);
  process.stdout.write(`skipped: restore contract tests: ${why}\n`);
  return why;
}
const missing = tmuxMissing();

const CLAUDE = ['a', 'b', 'c', 't', 'o'];

/**
 * a: resumed, restarted, forked into a2. b: its transcript is deleted (a decision). c: the runtime
 * reports it missing (rolled back, a decision). t: stops at a trust dialog (attention). o: its
 * conversation is opened by a hand-started process (refused). sh: fresh. nv: policy never.
 * off: stopped on purpose. cw: its folder is removed (failed).
 */
function crewYaml(bin: string, root: string): string {
  const shell = (id: string, cwd = './work', extra = '') =>
    `      - { id: ${id}, runtime: shell, cwd: ${cwd}, command: bash, args: ["--noprofile", "--norc"]${extra} }`;
  return [
    'name: crew',
    'pods:',
    '  - id: team',
    '    members:',
    ...CLAUDE.map(
      (m) =>
        `      - { id: ${m}, runtime: claude-code, cwd: ./work, command: ${bin}, env: { CLAUDE_CONFIG_DIR: ${join(root, `cfg-${m}`)} } }`,
    ),
    shell('sh'),
    shell('nv', './work', ', restore_policy: never'),
    shell('off'),
    shell('cw', './cwdir'),
    '',
  ].join('\n');
}

describe.skipIf(!!missing)('RESTORE answers on a real engine (stand-in Claude and shell seats)', () => {
  let w: RigWorld;
  let e: Engine;
  let work: string;
  const ids: Record<string, string> = {};
  const others: TestTmux[] = [];
  const cfg = (m: string) => join(w.root, `cfg-${m}`);

  /** A request through the engine's own dispatch, its answer parsed against its declared schema. */
  async function answer<M extends Method>(method: M, params: z.input<(typeof REQUESTS)[M]>): Promise<AnswerOf<M>> {
    const r = await dispatch(e, method, params);
    expectAnswer(method, r);
    if (!r.ok) throw new Error(`${method}: ${r.code} ${r.message}`);
    return r;
  }
  async function refusal<M extends Method>(method: M, params: z.input<(typeof REQUESTS)[M]>, code: string) {
    const r = await dispatch(e, method, params);
    expectFailure(method, r, code);
    expect(r.ok).toBe(false);
  }

  beforeAll(async () => {
    w = new RigWorld();
    mkdirSync(join(w.root, 'work'), { recursive: true });
    mkdirSync(join(w.root, 'cwdir'), { recursive: true });
    work = realpathSync(join(w.root, 'work'));
    const spec = w.spec('rig.yaml', crewYaml(writeClaudeStandIn(join(w.root, 'bin')), w.root));
    e = w.engine();
    const up = await dispatch(e, 'up', { spec });
    expect(up.ok, JSON.stringify(up)).toBe(true);
    for (const m of CLAUDE) {
      ids[m] = await waitFor(() => e.store.rigs.seat(`${m}@crew`)?.conversationId ?? undefined, { what: `${m} id` });
      await waitFor(() => existsSync(standInTranscript(cfg(m), work, ids[m]!)), { what: `${m} transcript` });
    }
    const stopped = await dispatch(e, 'stop', { seat: 'off@crew' });
    expect(stopped.ok, JSON.stringify(stopped)).toBe(true);
  }, 120_000);
  afterAll(() => {
    for (const t of others.splice(0)) t.kill();
    w?.cleanup();
  });

  const seatsOf = <T extends { seat: string }>(seats: readonly T[]) =>
    Object.fromEntries(seats.map((s) => [s.seat, s]));

  // Run in this order, each on the world the previous ones left: the live rig first (snapshot,
  // lifecycle, fork), then a simulated reboot for restore, its decisions and reconcile.
  const SCENARIOS: Record<keyof typeof RESTORE_REQUESTS, () => Promise<void>> = {
    snapshot: async () => {
      const { snapshot } = await answer('snapshot', { rig: 'crew' });
      const by = seatsOf(snapshot.seats);
      expect(by['a@crew']).toMatchObject({ state: 'running', conversationId: ids.a });
      expect(by['a@crew']!.evidence.transcript).toMatchObject({ state: 'present' });
      expect(by['off@crew']).toMatchObject({ state: 'stopped', stoppedOnPurpose: true });
      await refusal('snapshot', { rig: 'nope' }, 'RIG_NOT_FOUND');
    },
    snapshots: async () => {
      const all = await answer('snapshots', {});
      expect(all.snapshots.length).toBeGreaterThan(0);
      const one = await answer('snapshots', { rig: 'crew', limit: 1 });
      expect(one.snapshots).toEqual([all.snapshots[0]]);
      expect((await answer('snapshots', { rig: 'nope' })).snapshots).toEqual([]);
    },
    restart: async () => {
      const plan = await answer('restart', { seat: 'a@crew', keepConversation: true, plan: true });
      expect(plan).toMatchObject({ plan: { launch: 'resume', conversationId: ids.a, samePane: true } });
      expect('result' in plan).toBe(false);
      const real = await answer('restart', { seat: 'a@crew', keepConversation: true });
      expect(real).toMatchObject({ result: { outcome: 'resumed', conversationId: ids.a } });
      // Its new process stops at a dialog: up, kept, not resumed.
      writeFileSync(join(cfg('t'), 'trust-dialog'), '');
      const t = await answer('restart', { seat: 't@crew', keepConversation: true });
      expect(t).toMatchObject({ result: { outcome: 'attention_required', evidence: { reason: 'trust_dialog' } } });
      await refusal('restart', { seat: 'sh@crew', keepConversation: true }, 'BAD_USAGE');
      await refusal('restart', { seat: 'nobody@crew', keepConversation: true }, 'SEAT_NOT_FOUND');
    },
    fresh: async () => {
      const plan = await answer('fresh', { seat: 'sh@crew', reason: 'a clean shell', plan: true });
      expect(plan.plan).toMatchObject({ launch: 'fresh', stop: { paneId: expect.any(String) } });
      const real = await answer('fresh', { seat: 'sh@crew', reason: 'a clean shell' });
      expect(real).toMatchObject({ result: { outcome: 'fresh', paneId: expect.any(String) } });
      const t = await answer('fresh', { seat: 't@crew', reason: 'start over behind the dialog' });
      expect(t).toMatchObject({
        plan: { previousConversationId: ids.t },
        result: { outcome: 'attention_required' },
      });
      await refusal('fresh', { seat: 'nobody@crew', reason: 'x' }, 'SEAT_NOT_FOUND');
    },
    fork: async () => {
      const plan = await answer('fork', { seat: 'a@crew', as: 'a2', plan: true });
      expect(plan.plan).toMatchObject({ source: 'a@crew', seat: 'a2@crew', from: ids.a, sourceRunning: true });
      const real = await answer('fork', { seat: 'a@crew', as: 'a2' });
      expect(real).toMatchObject({ result: { outcome: 'forked', from: ids.a } });
      await refusal('fork', { seat: 'a@crew', as: 'a2' }, 'SEAT_EXISTS');
      await refusal('fork', { seat: 'sh@crew', as: 'sh2' }, 'BAD_USAGE');
    },
    restore: async () => {
      const live = await answer('restore', { target: 'crew', plan: true });
      expect(live).toMatchObject({ planOnly: true, snapshotId: null });
      expect(seatsOf(live.plan)['a@crew']).toMatchObject({ action: 'verify_running' });

      w.tmux.kill(); // a simulated reboot
      rmSync(standInTranscript(cfg('b'), work, ids.b!));
      writeFileSync(join(cfg('c'), `missing-${ids.c}`), '');
      rmSync(join(w.root, 'cwdir'), { recursive: true });
      const hand = new TestTmux('rdt-hand');
      others.push(hand);
      hand.newSession('mine', standInArgv('claude', ['--resume', ids.o!]), { cwd: work });
      await waitFor(
        async () => (await e.roster()).agents.some((x) => x.conversationId === ids.o && x.pane?.server !== e.ownKey),
        { what: 'the hand-started owner of o' },
      );

      const preview = await answer('restore', { target: 'crew', plan: true });
      expect(preview.planOnly).toBe(true);
      expect(seatsOf(preview.plan)['b@crew']).toMatchObject({
        action: 'awaiting_decision',
        planned: 'awaiting_decision',
      });

      const run = await answer('restore', { target: 'crew' });
      if (run.planOnly) throw new Error('a real run answered as a plan');
      const by = seatsOf(run.seats);
      expect(run.outcome).toBe('partially_restored');
      expect(by['a@crew']).toMatchObject({ outcome: 'resumed', conversationId: ids.a });
      expect(by['a2@crew']).toMatchObject({ outcome: 'resumed' });
      expect(by['b@crew']).toMatchObject({ outcome: 'awaiting_decision', decisionId: expect.any(Number) });
      expect(by['c@crew']).toMatchObject({ outcome: 'awaiting_decision', evidence: { screen: expect.any(String) } });
      expect(by['t@crew']).toMatchObject({ outcome: 'attention_required' });
      expect(by['o@crew']).toMatchObject({ outcome: 'refused', code: 'CONVERSATION_LIVE_ELSEWHERE' });
      expect(by['sh@crew']).toMatchObject({ outcome: 'fresh' });
      expect(by['nv@crew']).toMatchObject({ outcome: 'skipped_policy' });
      expect(by['off@crew']).toMatchObject({ outcome: 'skipped_stopped' });
      expect(by['cw@crew']).toMatchObject({ outcome: 'failed', code: 'CWD_MISSING' });

      // A snapshot by id, previewed; then again for real: what runs is verified, never relaunched.
      const ofSnapshot = await answer('restore', { target: `snap-${run.snapshotId}`, plan: true });
      expect(ofSnapshot).toMatchObject({ planOnly: true, snapshotId: run.snapshotId });
      const again = await answer('restore', { target: 'crew' });
      expect(seatsOf(again.seats)['a@crew']).toMatchObject({ outcome: 'running' });
      await refusal('restore', { target: 'nope' }, 'RIG_NOT_FOUND');
    },
    decisions: async () => {
      const open = await answer('decisions', {});
      expect(open.decisions.map((d) => [d.seat, d.reason, d.state]).sort()).toEqual([
        ['b@crew', 'transcript_missing', 'open'],
        ['c@crew', 'conversation_missing_reported', 'open'],
      ]);
      expect((await answer('decisions', { rig: 'nope', all: true })).decisions).toEqual([]);
    },
    decide: async () => {
      const open = seatsOf((await answer('decisions', { rig: 'crew' })).decisions);
      const b = await answer('decide', { id: open['b@crew']!.id, choice: 'fresh', reason: 'the transcript is gone' });
      expect(b).toMatchObject({ decision: { state: 'answered', answer: 'fresh' }, result: { outcome: 'fresh' } });
      const c = await answer('decide', { id: open['c@crew']!.id, choice: 'leave_stopped', reason: 'not needed' });
      expect(c.result).toEqual({ seat: 'c@crew', outcome: 'left_stopped' });
      // Answered decisions, with what each answer did, are listed with `all`.
      const all = await answer('decisions', { all: true });
      expect(all.decisions.filter((d) => d.state === 'answered').map((d) => d.outcome?.outcome)).toEqual([
        'fresh',
        'left_stopped',
      ]);
      await refusal(
        'decide',
        { id: open['c@crew']!.id, choice: 'fresh', reason: 'again' },
        'DECISION_ALREADY_ANSWERED',
      );
      await refusal('decide', { id: 9999, choice: 'fresh', reason: 'x' }, 'DECISION_NOT_FOUND');
      await refusal('decide', { id: open['b@crew']!.id, choice: 'resume', reason: '' }, 'BAD_USAGE');
    },
    reconcile: async () => {
      const quiet = await answer('reconcile', {});
      expect(quiet.report).toMatchObject({ ended: [], reservations: [], interruptedRuns: [] });
      w.tmux.kill(); // another reboot: every live row's session is provably gone
      const after = await answer('reconcile', {});
      expect(after.report.ended.map((x) => x.seat)).toContain('a@crew');
    },
  };

  for (const [method, run] of Object.entries(SCENARIOS)) it(method, run, 120_000);
});
