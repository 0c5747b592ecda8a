/**
 * `attention_required` with the real Claude Code CLI (fake model server, 127.0.0.1 only): after a
 * reboot, restore launches agents whose folder is not trusted (the fixture leaves it out of
 * `trustedCwds`), so Claude stops at "Quick safety check: Is this a project you created or one
 * you trust?". Both the resumed seat and the fresh one end `attention_required`, panes kept, no
 * decision asked; the rig reads partially_restored. Once the person answers the dialog, the next
 * restore proves the resume (same id, live-state file) and a message lands in the same transcript.
 */
import { randomUUID } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, realpathSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { makeClaudeFixture, type ClaudeFixture } from '../agents/claude-fixture';
import { runClaude, waitForExit } from '../agents/claude-run';
import { closedPort, startFakeModelServer, type FakeModelServer } from '../agents/fake-model-server';
import { descendants, liveProcReader } from '../../src/main/engine/proc';
import { loadRigSpec } from '../../src/main/engine/spec';
import { RUNTIME_IDS } from '../../src/main/engine/runtimes';
import { RigWorld } from '../support/rig';
import { waitFor } from '../support/tmux';

const LOCAL = ['127.0.0.1', '::ffff:127.0.0.1'];

describe('restore meets a dialog (real Claude Code, untrusted folder)', () => {
  let server: FakeModelServer;
  let closed: number;
  let w: RigWorld;
  let fx: ClaudeFixture;
  let work: string;

  beforeAll(async () => {
    server = await startFakeModelServer();
    closed = await closedPort();
  });
  afterAll(async () => {
    await server.close();
    expect(server.requests.every((r) => LOCAL.includes(r.remoteAddress))).toBe(true);
  });
  beforeEach(() => {
    w = new RigWorld();
    mkdirSync(join(w.root, 'work'), { recursive: true });
    work = realpathSync(join(w.root, 'work'));
    fx = makeClaudeFixture({
      serverUrl: server.url,
      closedPort: closed,
      trustedCwds: [],
      root: join(w.root, 'claude'),
    });
  });
  afterEach(async () => {
    const r = w.tmux.tryRun(['list-panes', '-a', '-F', '#{pane_pid}']);
    const snap = liveProcReader().snapshot();
    const pids = r.ok
      ? r.out
          .trim()
          .split('\n')
          .filter(Boolean)
          .map(Number)
          .flatMap((p) => [p, ...descendants(snap, p).map((d) => d.pid)])
      : [];
    w.tmux.kill();
    for (const p of pids) await waitForExit(p, 5000);
    w.cleanup();
  });

  const yaml = () => {
    const env = Object.entries(fx.env)
      .map(([k, v]) => `          ${k}: ${JSON.stringify(v)}`)
      .join('\n');
    return `${[
      'name: crew',
      'pods:',
      '  - id: team',
      '    members:',
      `      - id: lead\n        runtime: claude-code\n        cwd: ./work\n        env:\n${env}`,
      `      - id: newbie\n        runtime: claude-code\n        cwd: ./work\n        restore_policy: fresh\n        env:\n${env}`,
    ].join('\n')}\n`;
  };
  const transcript = (id: string) =>
    existsSync(fx.transcriptPath(work, id)) ? readFileSync(fx.transcriptPath(work, id), 'utf8') : '';

  it('a resumed and a fresh agent stopped at the trust dialog end attention_required with their panes; answering it lets the next restore prove the resume', async () => {
    // The state a reboot leaves: the rig recorded, lead's conversation on disk (one finished turn,
    // written headless, which asks no trust question), no tmux server.
    const X = randomUUID();
    const first = await runClaude(fx, work, ['-p', '--session-id', X, 'before reboot']);
    expect(first.code, first.stderr).toBe(0);
    expect(transcript(X)).toContain('ACK before reboot');
    const spec = loadRigSpec(w.spec('rig.yaml', yaml()), { knownRuntimes: RUNTIME_IDS });
    if (!spec.ok) throw new Error(spec.message);
    const e = w.engine();
    e.store.rigs.upsert(spec.spec);
    e.store.rigs.setConversation('lead@crew', X);

    const r = await w.cli(['restore', 'crew', '--json']);
    expect(r.code, r.stdout + r.stderr).toBe(0);
    const by = Object.fromEntries(r.json.seats.map((s: { seat: string }) => [s.seat, s]));
    expect(by['lead@crew']).toMatchObject({
      plan: 'resume',
      outcome: 'attention_required',
      conversationId: X,
      evidence: { reason: 'trust_dialog' },
    });
    expect(by['lead@crew'].evidence.screen).toContain('Is this a project you created or one you trust?');
    expect(by['newbie@crew']).toMatchObject({
      plan: 'fresh',
      outcome: 'attention_required',
      evidence: { reason: 'trust_dialog' },
    });
    expect(r.json.outcome).toBe('partially_restored');
    // Both panes are kept (the person answers there); no decision is asked for a dialog.
    expect(
      w
        .sessions()
        .map((s) => s.seat)
        .sort(),
    ).toEqual(['lead@crew', 'newbie@crew']);
    expect((await w.cli(['decisions', '--json'])).json.decisions).toEqual([]);
    const psLead = (await w.cli(['ps', '--json'])).json.seats.find((s: { seat: string }) => s.seat === 'lead@crew');
    expect(psLead.activity).toBe('needs_input');
    expect(readFileSync(`/proc/${psLead.pid}/cmdline`, 'utf8').split('\0')).toEqual(
      expect.arrayContaining(['--resume', X]),
    );

    // The person trusts the folder in lead's pane; the next restore proves the resume.
    w.tmux.run(['send-keys', '-t', by['lead@crew'].paneId, 'Enter']);
    await waitFor(() => existsSync(join(fx.liveStateDir, `${psLead.pid}.json`)), {
      timeoutMs: 30_000,
      what: 'lead past its dialog',
    });
    const again = await w.cli(['restore', 'crew', '--json']);
    expect(again.code, again.stdout + again.stderr).toBe(0);
    const by2 = Object.fromEntries(again.json.seats.map((s: { seat: string }) => [s.seat, s]));
    expect(by2['lead@crew']).toMatchObject({
      outcome: 'running',
      conversationId: X,
      pid: psLead.pid,
      paneId: by['lead@crew'].paneId,
    });
    expect(by2['newbie@crew']).toMatchObject({ outcome: 'attention_required', paneId: by['newbie@crew'].paneId });
    expect(again.json.outcome).toBe('partially_restored');
    expect(w.sessions()).toHaveLength(2);
    expect(JSON.parse(readFileSync(join(fx.liveStateDir, `${psLead.pid}.json`), 'utf8')).sessionId).toBe(X);
    await waitFor(
      async () =>
        (await w.cli(['ps', '--json'])).json.seats.find((s: { seat: string }) => s.seat === 'lead@crew')?.activity ===
        'idle',
      { timeoutMs: 45_000, what: 'lead idle' },
    );
    expect((await w.cli(['send', 'lead@crew', 'after the dialog', '--json'])).code).toBe(0);
    await waitFor(() => transcript(X).includes('ACK after the dialog'), {
      timeoutMs: 45_000,
      what: 'the reply in the same transcript',
    });
    expect(transcript(X)).toContain('ACK before reboot');
  }, 240_000);
});
