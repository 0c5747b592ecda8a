/**
 * Lifecycle and reconcile through the built CLI with STAND-IN Claude seats: restart keeps the
 * conversation or refuses with nothing stopped; fresh --reason refuses before stopping anything
 * while the old conversation is open elsewhere; reconcile records what vanished and deletes nothing.
 */
import { existsSync, mkdirSync, readFileSync, realpathSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { spawn } from 'node:child_process';
import { RIGDESK_BIN, RigWorld } from '../support/rig';
import { spawnHeadlessStandIn } from '../support/standin';
import { waitFor } from '../support/tmux';
import { standInRigYaml, standInTranscript, writeClaudeStandIn } from './standin-claude';

describe('seat lifecycle (stand-in Claude seats)', () => {
  let w: RigWorld;
  let work: string;
  let ids: Record<string, string>;
  const pids: number[] = [];
  beforeEach(async () => {
    w = new RigWorld();
    mkdirSync(join(w.root, 'work'), { recursive: true });
    work = realpathSync(join(w.root, 'work'));
    const bin = writeClaudeStandIn(join(w.root, 'bin'));
    const up = await w.cli(['up', w.spec('rig.yaml', standInRigYaml('crew', bin, w.root, ['a'], ['sh'])), '--json']);
    expect(up.code, up.stdout + up.stderr).toBe(0);
    ids = { a: up.json.seats.find((s: { seat: string }) => s.seat === 'a@crew').launched.conversationId };
    await waitFor(() => existsSync(standInTranscript(join(w.root, 'cfg-a'), work, ids.a!)), { what: 'transcript' });
  });
  afterEach(() => {
    for (const p of pids.splice(0)) {
      try {
        process.kill(p, 'SIGKILL');
      } catch {
        /* gone */
      }
    }
    w.cleanup();
  });
  const row = async (seat: string) =>
    (await w.cli(['ps', '--json'])).json.seats.find((s: { seat: string }) => s.seat === seat);

  it('restart --keep-conversation: --plan stops nothing; the real one comes back on the same conversation in a new process, in the same pane and session', async () => {
    const first = await waitFor(async () => ((await row('a@crew'))?.pid ? row('a@crew') : undefined), {
      what: 'a pid',
    });
    const plan = await w.cli(['restart', 'a@crew', '--keep-conversation', '--plan', '--json']);
    expect(plan.code, plan.stdout + plan.stderr).toBe(0);
    expect(plan.json.plan).toMatchObject({ launch: 'resume', conversationId: ids.a, stop: { pid: first.pid } });
    expect((await row('a@crew')).pid).toBe(first.pid);
    const r = await w.cli(['restart', 'a@crew', '--keep-conversation', '--json']);
    expect(r.code, r.stdout + r.stderr).toBe(0);
    expect(r.json.result).toMatchObject({ outcome: 'resumed', conversationId: ids.a });
    const after = await row('a@crew');
    expect(after.pid).not.toBe(first.pid);
    expect(readFileSync(`/proc/${after.pid}/cmdline`, 'utf8').split('\0')).toEqual(
      expect.arrayContaining(['--resume', ids.a]),
    );
    // Same pane, same session: the row kept its identity, only the pane's pid moved on.
    expect(after).toMatchObject({ paneId: first.paneId, sessionId: first.sessionId });
    expect(r.json.result).toMatchObject({ paneId: first.paneId, sessionId: first.sessionId });
    expect(w.sessions().filter((s) => s.seat === 'a@crew')).toHaveLength(1);
    const e = w.engine();
    const rows = e.store.db.prepare("SELECT state, pane_id, pane_pid FROM sessions WHERE seat = 'a@crew'").all() as {
      state: string;
      pane_id: string;
      pane_pid: number;
    }[];
    expect(rows).toHaveLength(1);
    expect(rows[0]!.state).toBe('live');
    const panePid = Number(w.tmux.run(['display-message', '-p', '-t', first.paneId, '#{pane_pid}']).trim());
    expect(rows[0]!.pane_pid).toBe(panePid);
    // The old process is gone before the new one started (the pane waits for it), and the fence was used and released.
    expect(existsSync(`/proc/${first.pid}`) && readFileSync(`/proc/${first.pid}/cmdline`, 'utf8').length > 0).toBe(
      false,
    );
    expect(e.store.reservations.allActive()).toEqual([]);
    const ev = (await w.cli(['events', '--seat', 'a@crew', '--json'])).json.events
      .filter((x: { kind: string }) => x.kind === 'seat.restart')
      .map((x: { data: { step: string } }) => x.data.step);
    expect(ev).toEqual(['begin', 'respawned', 'end']);
  });

  it('restart killed (SIGKILL) after reserving and after respawning the pane: the next restart settles the reservation, follows the pane and ends on the same conversation in the same pane', async () => {
    const first = await waitFor(async () => ((await row('a@crew'))?.pid ? row('a@crew') : undefined), {
      what: 'a pid',
    });
    for (const point of ['restart.after_reserved', 'restart.after_respawn']) {
      const child = spawn(process.execPath, [RIGDESK_BIN, 'restart', 'a@crew', '--keep-conversation'], {
        env: { ...w.env, RIGDESK_TEST_FAULT: `${point}:pause` },
        stdio: ['ignore', 'pipe', 'pipe'],
      });
      let err = '';
      child.stderr.on('data', (d: Buffer) => (err += d.toString()));
      const exited = new Promise<void>((r) => child.once('exit', () => r()));
      await waitFor(() => err.includes(`paused at ${point}`), { what: point, timeoutMs: 30_000 });
      process.kill(child.pid!, 'SIGKILL');
      await exited;
      const r = await w.cli(['restart', 'a@crew', '--keep-conversation', '--json']);
      expect(r.code, `${point}: ${r.stdout}${r.stderr}`).toBe(0);
      expect(r.json.result).toMatchObject({
        outcome: 'resumed',
        conversationId: ids.a,
        paneId: first.paneId,
        sessionId: first.sessionId,
      });
      const e = w.engine();
      expect(e.store.reservations.allActive()).toEqual([]);
      const live = e.store.sessions.live('a@crew')!;
      expect(live.panePid).toBe(
        Number(w.tmux.run(['display-message', '-p', '-t', first.paneId, '#{pane_pid}']).trim()),
      );
      expect(e.store.db.prepare("SELECT count(*) AS n FROM sessions WHERE seat = 'a@crew'").get()).toEqual({ n: 1 });
      const now = await row('a@crew');
      expect(readFileSync(`/proc/${now.pid}/cmdline`, 'utf8').split('\0')).toEqual(
        expect.arrayContaining(['--resume', ids.a]),
      );
    }
    expect(
      w
        .sessions()
        .map((x) => x.seat)
        .sort(),
    ).toEqual(['a@crew', 'sh@crew']);
  });

  it('restart refuses with nothing stopped when it cannot prove the conversation (a shell seat; a seat not running)', async () => {
    const sh = await row('sh@crew');
    expect((await w.cli(['restart', 'sh@crew', '--keep-conversation', '--json'])).json.code).toBe('BAD_USAGE');
    expect((await w.cli(['restart', 'a@crew', '--json'])).json.code).toBe('BAD_USAGE'); // the flag is required
    expect((await row('sh@crew')).pid).toBe(sh.pid);
    expect((await w.cli(['stop', 'a@crew'])).code).toBe(0);
    expect((await w.cli(['restart', 'a@crew', '--keep-conversation', '--json'])).json.code).toBe('SEAT_NOT_RUNNING');
  });

  it('fresh --reason refuses before stopping anything while the old conversation is open elsewhere, then starts a new one with the reason on record', async () => {
    expect((await w.cli(['stop', 'a@crew'])).code).toBe(0);
    const hand = spawnHeadlessStandIn('claude', ['--resume', ids.a!]);
    pids.push(hand.pid!);
    await waitFor(() => readFileSync(`/proc/${hand.pid}/cmdline`, 'utf8').startsWith('claude'), {
      what: 'hand stand-in',
    });
    const refused = await w.cli(['fresh', 'a@crew', '--reason', 'start over', '--json']);
    expect(refused.json.code).toBe('CONVERSATION_LIVE_ELSEWHERE');
    expect(w.sessions().map((s) => s.seat)).toEqual(['sh@crew']);
    process.kill(hand.pid!, 'SIGKILL');
    pids.splice(0);
    await waitFor(async () => !(await w.cli(['fresh', 'a@crew', '--reason=x', '--plan', '--json'])).json.code, {
      what: 'guard released',
    });
    const plan = await w.cli(['fresh', 'a@crew', '--reason=x', '--plan', '--json']);
    expect(plan.json.plan).toMatchObject({ launch: 'fresh', previousConversationId: ids.a });
    const r = await w.cli(['fresh', 'a@crew', '--reason', 'start over', '--json']);
    expect(r.code, r.stdout + r.stderr).toBe(0);
    expect(r.json.result.conversationId).not.toBe(ids.a);
    const ev = (await w.cli(['events', '--seat', 'a@crew', '--json'])).json.events.filter(
      (e: { kind: string }) => e.kind === 'seat.fresh_with_reason',
    );
    expect(ev.at(-1).data).toMatchObject({
      step: 'end',
      reason: 'start over',
      previousConversationId: ids.a,
      outcome: 'fresh',
    });
  });

  it('fork (stand-in Claude): bad requests create nothing; a stopped seat forks from its recorded conversation into a new seat of the same pod; X open elsewhere refuses; a launch refused after the seat was recorded leaves no seat behind', async () => {
    const seats = async () =>
      ((await w.cli(['ps', '--json'])).json.seats as { seat: string }[]).map((s) => s.seat).sort();
    const shell = (await w.cli(['fork', 'sh@crew', '--as', 'sh2', '--json'])).json;
    expect(shell).toMatchObject({
      code: 'BAD_USAGE',
      message: expect.stringMatching(/keeps no conversation\); nothing was created/),
      hint: expect.stringMatching(/Claude Code or Codex/),
      evidence: { runtime: 'shell' },
    });
    expect((await w.cli(['fork', 'a@crew', '--json'])).json.code).toBe('BAD_USAGE'); // --as is required
    expect((await w.cli(['fork', 'zz@crew', '--as', 'b', '--json'])).json.code).toBe('SEAT_NOT_FOUND');
    expect((await w.cli(['fork', 'a@crew', '--as', 'sh', '--json'])).json.code).toBe('SEAT_EXISTS'); // exists
    expect((await w.cli(['fork', 'a@crew', '--as', 'b@x', '--json'])).json.code).toBe('SEAT_NAME_INVALID');
    expect(await seats()).toEqual(['a@crew', 'sh@crew']);

    // Stopped: the fork reads the recorded conversation; the source stays stopped and untouched.
    expect((await w.cli(['stop', 'a@crew'])).code).toBe(0);
    const xBefore = readFileSync(standInTranscript(join(w.root, 'cfg-a'), work, ids.a!), 'utf8');
    const plan = await w.cli(['fork', 'a@crew', '--as', 'b', '--plan', '--json']);
    expect(plan.json.plan).toMatchObject({
      source: 'a@crew',
      seat: 'b@crew',
      from: ids.a,
      fromEvidence: { source: 'store' },
      sourceRunning: false,
    });
    expect(await seats()).toEqual(['a@crew', 'sh@crew']);
    const f = await w.cli(['fork', 'a@crew', '--as', 'b', '--json']);
    expect(f.code, f.stdout + f.stderr).toBe(0);
    const NEW = f.json.result.conversationId as string;
    expect(f.json.result).toMatchObject({ outcome: 'forked', from: ids.a });
    expect(NEW).not.toBe(ids.a);
    expect(readFileSync(standInTranscript(join(w.root, 'cfg-a'), work, NEW), 'utf8')).toContain('standin-forked');
    expect(readFileSync(standInTranscript(join(w.root, 'cfg-a'), work, ids.a!), 'utf8')).toBe(xBefore);
    const b = await row('b@crew');
    expect(b).toMatchObject({ state: 'running', conversationId: NEW });
    expect(readFileSync(`/proc/${b.pid}/cmdline`, 'utf8').split('\0')).toEqual(
      expect.arrayContaining(['--resume', ids.a, '--fork-session', '--session-id', NEW]),
    );
    expect(await row('a@crew')).toMatchObject({ state: 'stopped' });
    const e = w.engine();
    expect(e.store.rigs.seat('b@crew')).toMatchObject({
      pod: 'team',
      member: 'b',
      runtime: 'claude-code',
      conversationId: NEW,
      stoppedOnPurpose: false,
    });

    // X open in a process outside the source seat: refused, nothing recorded.
    const hand = spawnHeadlessStandIn('claude', ['--resume', ids.a!]);
    pids.push(hand.pid!);
    await waitFor(() => readFileSync(`/proc/${hand.pid}/cmdline`, 'utf8').startsWith('claude'), {
      what: 'hand stand-in',
    });
    const refused = await w.cli(['fork', 'a@crew', '--as', 'c', '--json']);
    expect(refused.json).toMatchObject({
      code: 'CONVERSATION_LIVE_ELSEWHERE',
      evidence: { owners: [{ pid: hand.pid, headless: true }] },
    });
    expect(e.store.rigs.seat('c@crew')).toBeUndefined();
    process.kill(hand.pid!, 'SIGKILL');
    pids.splice(0);

    // A launch refused after the new seat was recorded (the program vanished) removes that seat again.
    await waitFor(async () => !(await w.cli(['fork', 'a@crew', '--as', 'c', '--plan', '--json'])).json.code, {
      what: 'guard released',
    });
    rmSync(join(w.root, 'bin', 'claude'));
    const gone = await w.cli(['fork', 'a@crew', '--as', 'c', '--json']);
    expect(gone.json.code).toBe('RUNTIME_NOT_INSTALLED');
    expect(gone.json.message).toContain('c@crew was not kept');
    expect(e.store.rigs.seat('c@crew')).toBeUndefined();
    expect(await seats()).toEqual(['a@crew', 'b@crew', 'sh@crew']);
    const ev = (await w.cli(['events', '--seat', 'c@crew', '--json'])).json.events
      .filter((x: { kind: string }) => x.kind === 'seat.fork')
      .map((x: { data: { step: string } }) => x.data.step);
    expect(ev).toEqual(['begin', 'refused']);
  });

  it('reconcile ends live rows whose sessions vanished (gone_at_reconcile) and leaves every row it cannot explain', async () => {
    w.tmux.kill();
    const r = await w.cli(['reconcile', '--json']);
    expect(r.code, r.stdout + r.stderr).toBe(0);
    expect(r.json.report.ended.map((e: { seat: string }) => e.seat).sort()).toEqual(['a@crew', 'sh@crew']);
    const ev = (await w.cli(['events', '--json'])).json.events.filter(
      (e: { kind: string }) => e.kind === 'reconcile.ended_gone',
    );
    expect(ev).toHaveLength(2);
    // Rows are ended, never deleted.
    const e = w.engine();
    expect(e.store.db.prepare("SELECT end_reason FROM sessions WHERE seat = 'a@crew'").all()).toEqual([
      { end_reason: 'gone_at_reconcile' },
    ]);
    // A second reconcile finds nothing new.
    expect((await w.cli(['reconcile', '--json'])).json.report.ended).toEqual([]);
  });

  it("snapshot records every seat's runtime, cwd, conversation with evidence and stop flag", async () => {
    expect((await w.cli(['stop', 'sh@crew'])).code).toBe(0);
    const s = await w.cli(['snapshot', 'crew', '--json']);
    expect(s.code, s.stdout + s.stderr).toBe(0);
    const by = Object.fromEntries(s.json.snapshot.seats.map((x: { seat: string }) => [x.seat, x]));
    expect(by['a@crew']).toMatchObject({
      runtime: 'claude-code',
      cwd: work,
      conversationId: ids.a,
      stoppedOnPurpose: false,
      state: 'running',
    });
    expect(by['a@crew'].evidence).toMatchObject({ source: 'roster:argv', transcript: { state: 'present' } });
    expect(by['sh@crew']).toMatchObject({
      runtime: 'shell',
      stoppedOnPurpose: true,
      state: 'stopped',
      conversationId: null,
    });
    expect((await w.cli(['snapshots', '--rig', 'crew', '--json'])).json.snapshots[0]).toMatchObject({
      id: s.json.snapshot.id,
      reason: 'manual',
    });
    // Restoring that snapshot by id: the running seat is verified, the stopped one skipped.
    const r = await w.cli(['restore', String(s.json.snapshot.id), '--json']);
    expect(Object.fromEntries(r.json.seats.map((x: { seat: string; outcome: string }) => [x.seat, x.outcome]))).toEqual(
      { 'a@crew': 'running', 'sh@crew': 'skipped_stopped' },
    );
    expect(r.json.outcome).toBe('fully_restored');
  });
});
