/**
 * Restore end to end through the built CLI, with STAND-IN Claude seats (test/restore/standin-claude.ts)
 * on a private tmux server: a simulated reboot, a deleted transcript, a runtime that reports its
 * conversation missing, a conversation open elsewhere, and the decisions that follow.
 */
import { existsSync, mkdirSync, readFileSync, realpathSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { RigWorld } from '../support/rig';
import { standInArgv } from '../support/standin';
import { TestTmux, waitFor } from '../support/tmux';
import { standInRigYaml, standInTranscript, writeClaudeStandIn } from './standin-claude';

describe('restore with stand-in Claude seats (shell-free resumable stand-in)', () => {
  let w: RigWorld;
  let work: string;
  let bin: string;
  const others: TestTmux[] = [];
  beforeEach(() => {
    w = new RigWorld();
    mkdirSync(join(w.root, 'work'), { recursive: true });
    work = realpathSync(join(w.root, 'work'));
    bin = writeClaudeStandIn(join(w.root, 'bin'));
  });
  afterEach(() => {
    for (const t of others.splice(0)) t.kill();
    w.cleanup();
  });

  const cfg = (m: string) => join(w.root, `cfg-${m}`);
  async function upCrew(claude: string[], shell: string[] = []) {
    const spec = w.spec('rig.yaml', standInRigYaml('crew', bin, w.root, claude, shell));
    const up = await w.cli(['up', spec, '--json']);
    expect(up.code, up.stdout + up.stderr).toBe(0);
    const ids: Record<string, string> = {};
    for (const s of up.json.seats)
      if (s.launched?.conversationId) ids[s.seat.split('@')[0]] = s.launched.conversationId;
    for (const m of claude)
      await waitFor(() => existsSync(standInTranscript(cfg(m), work, ids[m]!)), { what: `${m} transcript` });
    return ids;
  }
  const reboot = () => w.tmux.kill();
  const psRows = async () =>
    (await w.cli(['ps', '--json'])).json.seats as {
      seat: string;
      state: string;
      pid?: number;
      conversationId?: string;
      paneId?: string;
    }[];

  it('after a simulated reboot: same conversation ids, a deleted transcript and a runtime\'s "missing" report end awaiting_decision with no pane; the rig reads partially_restored', async () => {
    const ids = await upCrew(['a', 'b', 'c'], ['sh']);
    reboot();
    expect(w.sessions()).toEqual([]);
    rmSync(standInTranscript(cfg('b'), work, ids.b!));
    writeFileSync(join(cfg('c'), `missing-${ids.c}`), '');

    const plan = await w.cli(['restore', 'crew', '--plan', '--json']);
    expect(plan.code, plan.stdout + plan.stderr).toBe(0);
    expect(Object.fromEntries(plan.json.plan.map((p: { seat: string; action: string }) => [p.seat, p.action]))).toEqual(
      { 'a@crew': 'resume', 'b@crew': 'awaiting_decision', 'c@crew': 'resume', 'sh@crew': 'fresh' },
    );
    expect(w.sessions()).toEqual([]); // a plan launches nothing
    expect((await w.cli(['decisions', '--json'])).json.decisions).toEqual([]);

    const r = await w.cli(['restore', 'crew', '--json']);
    expect(r.code, r.stdout + r.stderr).toBe(0);
    const by = Object.fromEntries(r.json.seats.map((s: { seat: string }) => [s.seat, s]));
    expect(r.json.outcome).toBe('partially_restored');
    expect(by['a@crew']).toMatchObject({ outcome: 'resumed', conversationId: ids.a });
    expect(by['b@crew']).toMatchObject({ outcome: 'awaiting_decision', plan: 'awaiting_decision' });
    expect(by['c@crew']).toMatchObject({ outcome: 'awaiting_decision', plan: 'resume', conversationId: ids.c });
    expect(by['c@crew'].evidence.screen).toContain(`No conversation found with session ID: ${ids.c}`);
    expect(by['sh@crew']).toMatchObject({ outcome: 'fresh' });
    // No pane left for either decision; the resumed seat's process names the exact conversation.
    expect(
      w
        .sessions()
        .map((s) => s.seat)
        .sort(),
    ).toEqual(['a@crew', 'sh@crew']);
    const a = (await psRows()).find((s) => s.seat === 'a@crew')!;
    expect(readFileSync(`/proc/${a.pid}/cmdline`, 'utf8').split('\0')).toEqual(
      expect.arrayContaining(['--resume', ids.a]),
    );
    expect(readFileSync(standInTranscript(cfg('a'), work, ids.a!), 'utf8')).toContain('standin-resumed');

    // Decisions are durable rows with evidence; answering one launches (or does not launch) the seat.
    const ds = (await w.cli(['decisions', '--json'])).json.decisions as {
      id: number;
      seat: string;
      reason: string;
      choices: string[];
      evidence: Record<string, unknown>;
    }[];
    expect(ds.map((d) => [d.seat, d.reason]).sort()).toEqual([
      ['b@crew', 'transcript_missing'],
      ['c@crew', 'conversation_missing_reported'],
    ]);
    const db = ds.find((d) => d.seat === 'b@crew')!;
    const dc = ds.find((d) => d.seat === 'c@crew')!;
    expect(db.choices).toEqual(['resume', 'fresh', 'leave_stopped']);
    expect(dc.evidence.screen).toContain('No conversation found');
    expect(
      (await w.cli(['decide', String(db.id), 'fresh', '--reason', 'transcript lost', '--json'])).json.result,
    ).toMatchObject({ outcome: 'fresh' });
    const left = await w.cli(['decide', String(dc.id), 'leave_stopped', '--reason=not needed', '--json']);
    expect(left.json.result).toMatchObject({ outcome: 'left_stopped' });
    expect((await w.cli(['decide', String(dc.id), 'fresh', '--reason=again', '--json'])).json.code).toBe(
      'DECISION_ALREADY_ANSWERED',
    );
    const rows = await psRows();
    const b = rows.find((s) => s.seat === 'b@crew')!;
    expect(b.state).toBe('running');
    expect(b.conversationId).not.toBe(ids.b);
    expect(rows.find((s) => s.seat === 'c@crew')).toMatchObject({ state: 'stopped', stoppedOnPurpose: true });
    expect((await w.cli(['decisions', '--json'])).json.decisions).toEqual([]);
    const ev = (await w.cli(['events', '--rig', 'crew', '--json'])).json.events as {
      kind: string;
      data: Record<string, unknown>;
    }[];
    expect(ev.filter((e) => e.kind === 'decision.answered').map((e) => [e.data.choice, e.data.reason])).toEqual([
      ['fresh', 'transcript lost'],
      ['leave_stopped', 'not needed'],
    ]);

    // Restoring again is a no-op for what runs and does not ask twice.
    const again = await w.cli(['restore', 'crew', '--json']);
    expect(again.json.outcome, again.stdout).toBe('fully_restored');
    expect(
      Object.fromEntries(again.json.seats.map((s: { seat: string; outcome: string }) => [s.seat, s.outcome])),
    ).toEqual({ 'a@crew': 'running', 'b@crew': 'running', 'c@crew': 'skipped_stopped', 'sh@crew': 'running' });
    expect(w.sessions()).toHaveLength(3);
  });

  it('an agent up at a dialog after restore is attention_required: pane kept, no decision, the rig partially_restored; a fresh seat at a dialog too', async () => {
    const ids = await upCrew(['a', 'b']);
    reboot();
    writeFileSync(join(cfg('a'), 'trust-dialog'), '');
    const r = await w.cli(['restore', 'crew', '--json']);
    expect(r.code, r.stdout + r.stderr).toBe(0);
    const by = Object.fromEntries(r.json.seats.map((s: { seat: string }) => [s.seat, s]));
    expect(by['a@crew']).toMatchObject({
      plan: 'resume',
      outcome: 'attention_required',
      conversationId: ids.a,
      evidence: { reason: 'trust_dialog' },
    });
    expect(by['b@crew']).toMatchObject({ outcome: 'resumed', conversationId: ids.b });
    expect(r.json.outcome).toBe('partially_restored');
    expect(
      w
        .sessions()
        .map((s) => s.seat)
        .sort(),
    ).toEqual(['a@crew', 'b@crew']);
    expect((await w.cli(['decisions', '--json'])).json.decisions).toEqual([]);
    // Restoring again verifies, never relaunches: still at its dialog.
    const again = await w.cli(['restore', 'crew', '--json']);
    expect(
      Object.fromEntries(again.json.seats.map((s: { seat: string; outcome: string }) => [s.seat, s.outcome])),
    ).toEqual({ 'a@crew': 'attention_required', 'b@crew': 'running' });
    expect(w.sessions()).toHaveLength(2);
    // A fresh start that meets a dialog (fresh --reason) is attention_required as well, not a failure.
    expect((await w.cli(['stop', 'b@crew'])).code).toBe(0);
    writeFileSync(join(cfg('b'), 'trust-dialog'), '');
    const f = await w.cli(['fresh', 'b@crew', '--reason', 'new start', '--json']);
    expect(f.code, f.stdout + f.stderr).toBe(0);
    expect(f.json.result).toMatchObject({ outcome: 'attention_required', evidence: { reason: 'trust_dialog' } });
  });

  it('an agent that draws nothing for 6 s and then its trust dialog is attention_required, not resumed on a blank screen', async () => {
    const ids = await upCrew(['a']);
    reboot();
    writeFileSync(join(cfg('a'), 'slow-draw'), '6');
    writeFileSync(join(cfg('a'), 'trust-dialog'), '');
    const r = await w.cli(['restore', 'crew', '--json']);
    expect(r.code, r.stdout + r.stderr).toBe(0);
    expect(r.json.seats[0]).toMatchObject({
      seat: 'a@crew',
      outcome: 'attention_required',
      conversationId: ids.a,
      evidence: { reason: 'trust_dialog' },
    });
  }, 60_000);

  it("a hand-started process owning a seat's conversation makes restore refuse that seat (CONVERSATION_LIVE_ELSEWHERE) and restore the rest", async () => {
    const ids = await upCrew(['a', 'b']);
    reboot();
    const t = new TestTmux('rdt-hand');
    others.push(t);
    const hand = t.newSession('mine', standInArgv('claude', ['--resume', ids.a!]), { cwd: work });
    await waitFor(() => readFileSync(`/proc/${hand.panePid}/cmdline`, 'utf8').startsWith('claude'), {
      what: 'hand stand-in',
    });
    const r = await w.cli(['restore', 'crew', '--json']);
    expect(r.code, r.stdout + r.stderr).toBe(0);
    const by = Object.fromEntries(r.json.seats.map((s: { seat: string }) => [s.seat, s]));
    expect(by['a@crew']).toMatchObject({ outcome: 'refused', code: 'CONVERSATION_LIVE_ELSEWHERE' });
    expect(by['a@crew'].evidence.owners[0]).toMatchObject({ paneId: hand.paneId, conversationId: ids.a });
    expect(by['b@crew']).toMatchObject({ outcome: 'resumed', conversationId: ids.b });
    expect(r.json.outcome).toBe('partially_restored');
    expect(w.sessions().map((s) => s.seat)).toEqual(['b@crew']);
  });
});
