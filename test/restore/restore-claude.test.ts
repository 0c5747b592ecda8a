/**
 * Issue 5 acceptance with the real Claude Code CLI against the fake model server (127.0.0.1 only):
 * two seats with a finished turn, the tmux server killed (a simulated reboot), one transcript
 * deleted; restore brings the other back on the same conversation id (proven by its argv and
 * Claude's own live-state file), a later message lands in the same transcript, and the seat
 * without a transcript ends awaiting_decision with no pane; the rig reads partially_restored.
 */
import { existsSync, mkdirSync, readFileSync, realpathSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { makeClaudeFixture, type ClaudeFixture } from '../agents/claude-fixture';
import { waitForExit } from '../agents/claude-run';
import { closedPort, startFakeModelServer, type FakeModelServer } from '../agents/fake-model-server';
import { descendants, liveProcReader } from '../../src/main/engine/proc';
import { RigWorld } from '../support/rig';
import { waitFor } from '../support/tmux';

const LOCAL = ['127.0.0.1', '::ffff:127.0.0.1'];

describe('restore with real Claude Code seats', () => {
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
      trustedCwds: [work],
      root: join(w.root, 'claude'),
    });
  });
  afterEach(async () => {
    const pids = panePids();
    w.tmux.kill();
    for (const p of pids) await waitForExit(p, 5000);
    w.cleanup();
  });

  function panePids(): number[] {
    const r = w.tmux.tryRun(['list-panes', '-a', '-F', '#{pane_pid}']);
    if (!r.ok) return [];
    const snap = liveProcReader().snapshot();
    return r.out
      .trim()
      .split('\n')
      .filter(Boolean)
      .map(Number)
      .flatMap((p) => [p, ...descendants(snap, p).map((d) => d.pid)]);
  }

  const yaml = () => {
    const env = Object.entries(fx.env)
      .map(([k, v]) => `          ${k}: ${JSON.stringify(v)}`)
      .join('\n');
    return `${[
      'name: crew',
      'pods:',
      '  - id: team',
      '    members:',
      ...['lead', 'gone'].map(
        (m) => `      - id: ${m}\n        runtime: claude-code\n        cwd: ./work\n        env:\n${env}`,
      ),
    ].join('\n')}\n`;
  };

  async function waitIdle(seat: string) {
    return waitFor(
      async () => {
        const row = (await w.cli(['ps', '--json'])).json.seats.find((s: { seat: string }) => s.seat === seat);
        return row?.activity === 'idle' ? row : undefined;
      },
      { timeoutMs: 60_000, what: `${seat} idle` },
    );
  }
  async function turn(seat: string, id: string, text: string) {
    expect((await w.cli(['send', seat, text, '--json'])).code).toBe(0);
    await waitFor(
      () =>
        existsSync(fx.transcriptPath(work, id)) &&
        readFileSync(fx.transcriptPath(work, id), 'utf8').includes(`ACK ${text}`),
      { timeoutMs: 45_000, what: `${text} in ${seat}'s transcript` },
    );
  }

  it('reboot: the seat with a transcript resumes on the same id and keeps writing it; the one without ends awaiting_decision with no pane (partially_restored)', async () => {
    const up = await w.cli(['up', w.spec('rig.yaml', yaml()), '--json']);
    expect(up.code, up.stdout + up.stderr).toBe(0);
    const ids = Object.fromEntries(
      up.json.seats.map((s: { seat: string; launched: { conversationId: string } }) => [
        s.seat,
        s.launched.conversationId,
      ]),
    );
    const before = [await waitIdle('lead@crew'), await waitIdle('gone@crew')];
    await turn('lead@crew', ids['lead@crew'], 'before reboot');
    await turn('gone@crew', ids['gone@crew'], 'doomed');

    w.tmux.kill(); // the simulated reboot
    for (const r of before) await waitForExit(r.pid, 15_000);
    rmSync(fx.transcriptPath(work, ids['gone@crew']));

    const r = await w.cli(['restore', 'crew', '--json']);
    expect(r.code, r.stdout + r.stderr).toBe(0);
    const by = Object.fromEntries(r.json.seats.map((s: { seat: string }) => [s.seat, s]));
    expect(by['lead@crew']).toMatchObject({ outcome: 'resumed', conversationId: ids['lead@crew'] });
    expect(by['gone@crew']).toMatchObject({ outcome: 'awaiting_decision' });
    expect(r.json.outcome).toBe('partially_restored');
    expect(w.sessions().map((s) => s.seat)).toEqual(['lead@crew']);

    // Proven from the process itself: its argv and Claude's live-state file name the same id.
    const lead = await waitIdle('lead@crew');
    expect(readFileSync(`/proc/${lead.pid}/cmdline`, 'utf8').split('\0')).toEqual(
      expect.arrayContaining(['--resume', ids['lead@crew']]),
    );
    await waitFor(() => existsSync(join(fx.liveStateDir, `${lead.pid}.json`)), { what: 'live-state file' });
    expect(JSON.parse(readFileSync(join(fx.liveStateDir, `${lead.pid}.json`), 'utf8')).sessionId).toBe(
      ids['lead@crew'],
    );
    await turn('lead@crew', ids['lead@crew'], 'after reboot');
    const transcript = readFileSync(fx.transcriptPath(work, ids['lead@crew']), 'utf8');
    expect(transcript).toContain('ACK before reboot');

    const ds = (await w.cli(['decisions', '--rig', 'crew', '--json'])).json.decisions;
    expect(ds).toHaveLength(1);
    expect(ds[0]).toMatchObject({ seat: 'gone@crew', reason: 'transcript_missing', conversationId: ids['gone@crew'] });
  }, 240_000);
});
