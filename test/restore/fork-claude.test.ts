/**
 * `rigdesk fork` with the real Claude Code CLI against the fake model server (127.0.0.1 only):
 * a new seat in the same pod whose conversation is a fork of the source's, proven from its
 * process (argv and Claude's live-state file name the new id), and from the transcripts: the new
 * one starts with the source's history and takes the fork's turns, the source's is not appended
 * to by the fork (byte-for-byte until the source itself writes again). Forking while the source
 * seat itself is live on X is allowed; X open in a hand-started process elsewhere is refused with
 * nothing created. `restart --keep-conversation` replaces the real process inside the same pane.
 */
import { existsSync, mkdirSync, readFileSync, realpathSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { makeClaudeFixture, type ClaudeFixture } from '../agents/claude-fixture';
import { killTmuxServer, waitForExit } from '../agents/claude-run';
import { closedPort, startFakeModelServer, type FakeModelServer } from '../agents/fake-model-server';
import { descendants, liveProcReader } from '../../src/main/engine/proc';
import { RigWorld } from '../support/rig';
import { standInArgv } from '../support/standin';
import { TestTmux, waitFor } from '../support/tmux';

const LOCAL = ['127.0.0.1', '::ffff:127.0.0.1'];

describe('fork with real Claude Code seats', () => {
  let server: FakeModelServer;
  let closed: number;
  let w: RigWorld;
  let fx: ClaudeFixture;
  let work: string;
  const others: TestTmux[] = [];

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
    for (const t of others.splice(0)) killTmuxServer(t);
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
    ].join('\n')}\n`;
  };
  const ps = async () =>
    (await w.cli(['ps', '--json'])).json.seats as {
      seat: string;
      state: string;
      pid?: number;
      activity?: string;
      conversationId?: string;
      paneId?: string;
      pod?: string;
    }[];
  async function waitIdle(seat: string) {
    return waitFor(
      async () => {
        const row = (await ps()).find((s) => s.seat === seat);
        return row?.activity === 'idle' ? row : undefined;
      },
      { timeoutMs: 60_000, what: `${seat} idle` },
    );
  }
  const transcript = (id: string) =>
    existsSync(fx.transcriptPath(work, id)) ? readFileSync(fx.transcriptPath(work, id), 'utf8') : '';
  async function turn(seat: string, id: string, text: string) {
    const sent = await w.cli(['send', seat, text, '--json']);
    expect(sent.code, sent.stdout + sent.stderr).toBe(0);
    await waitFor(() => transcript(id).includes(`ACK ${text}`), {
      timeoutMs: 45_000,
      what: `${text} in ${seat}'s transcript`,
    });
  }

  it('fork --as makes a new seat on a new conversation copied from the source; the source transcript is untouched by the fork; restart keeps the pane', async () => {
    const up = await w.cli(['up', w.spec('rig.yaml', yaml()), '--json']);
    expect(up.code, up.stdout + up.stderr).toBe(0);
    const X = up.json.seats[0].launched.conversationId as string;
    const lead = await waitIdle('lead@crew');
    await turn('lead@crew', X, 'before fork');

    // Preview and bad names create nothing.
    const plan = await w.cli(['fork', 'lead@crew', '--as', 'helper', '--plan', '--json']);
    expect(plan.code, plan.stdout + plan.stderr).toBe(0);
    expect(plan.json.plan).toMatchObject({
      source: 'lead@crew',
      seat: 'helper@crew',
      runtime: 'claude-code',
      from: X,
      sourceRunning: true,
    });
    expect((await w.cli(['fork', 'lead@crew', '--as', 'lead', '--json'])).json).toMatchObject({
      code: 'SEAT_EXISTS',
      evidence: { exists: true },
    });
    expect((await w.cli(['fork', 'lead@crew', '--as', 'no good', '--json'])).json.code).toBe('SEAT_NAME_INVALID');
    expect((await ps()).map((s) => s.seat)).toEqual(['lead@crew']);
    expect(w.sessions().map((s) => s.seat)).toEqual(['lead@crew']);

    // The source is live on X in its own seat: the fork reads X and writes only its own id.
    const before = transcript(X);
    const f = await w.cli(['fork', 'lead@crew', '--as', 'helper', '--json']);
    expect(f.code, f.stdout + f.stderr).toBe(0);
    const NEW = f.json.result.conversationId as string;
    expect(f.json.result).toMatchObject({ seat: 'helper@crew', outcome: 'forked', from: X });
    expect(NEW).toMatch(/^[0-9a-f-]{36}$/);
    expect(NEW).not.toBe(X);

    // Proven from the process: argv names the new id with --fork-session, Claude's live state too.
    const helper = await waitIdle('helper@crew');
    expect(helper).toMatchObject({ state: 'running', conversationId: NEW });
    const argv = readFileSync(`/proc/${helper.pid}/cmdline`, 'utf8').split('\0');
    expect(argv).toEqual(expect.arrayContaining(['--resume', X, '--fork-session', '--session-id', NEW]));
    await waitFor(() => existsSync(join(fx.liveStateDir, `${helper.pid}.json`)), {
      what: 'live-state file of the fork',
    });
    expect(JSON.parse(readFileSync(join(fx.liveStateDir, `${helper.pid}.json`), 'utf8')).sessionId).toBe(NEW);
    // The source kept running, untouched.
    expect((await ps()).find((s) => s.seat === 'lead@crew')).toMatchObject({ pid: lead.pid, conversationId: X });

    // The fork's turn lands in NEW only; NEW starts with X's history; X is byte-for-byte unchanged.
    await turn('helper@crew', NEW, 'in the fork');
    expect(transcript(X)).toBe(before);
    expect(transcript(NEW)).toContain('ACK before fork');
    // The source still takes turns on X (the fork is not a second writer of it), and they stay there.
    await turn('lead@crew', X, 'in the source');
    expect(transcript(NEW)).not.toContain('in the source');
    expect(transcript(X)).not.toContain('in the fork');

    // Recorded: a seat of the same pod with its own conversation, and the fork's events.
    const e = w.engine();
    expect(e.store.rigs.seat('helper@crew')).toMatchObject({
      rig: 'crew',
      pod: 'team',
      member: 'helper',
      runtime: 'claude-code',
      cwd: work,
      conversationId: NEW,
      env: { CLAUDE_CONFIG_DIR: fx.configDir },
    });
    const ev = (await w.cli(['events', '--seat', 'helper@crew', '--json'])).json.events.filter(
      (x: { kind: string }) => x.kind === 'seat.fork',
    );
    expect(ev.map((x: { data: { step: string } }) => x.data.step)).toEqual(['begin', 'end']);
    expect(ev[1].data).toMatchObject({ source: 'lead@crew', from: X, conversationId: NEW, outcome: 'forked' });

    // restart --keep-conversation with the real CLI: the same pane and session, a new process on X,
    // started only once the old one is gone; the next turn lands in X.
    const r = await w.cli(['restart', 'lead@crew', '--keep-conversation', '--json']);
    expect(r.code, r.stdout + r.stderr).toBe(0);
    expect(r.json.result).toMatchObject({ outcome: 'resumed', conversationId: X, paneId: lead.paneId });
    const again = await waitIdle('lead@crew');
    expect(again).toMatchObject({ paneId: lead.paneId, conversationId: X });
    expect(again.pid).not.toBe(lead.pid);
    expect(existsSync(`/proc/${lead.pid}/cmdline`) && readFileSync(`/proc/${lead.pid}/cmdline`, 'utf8') !== '').toBe(
      false,
    );
    expect(readFileSync(`/proc/${again.pid}/cmdline`, 'utf8').split('\0')).toEqual(
      expect.arrayContaining(['--resume', X]),
    );
    expect(JSON.parse(readFileSync(join(fx.liveStateDir, `${again.pid}.json`), 'utf8')).sessionId).toBe(X);
    expect(w.sessions().filter((s) => s.seat === 'lead@crew')).toHaveLength(1);
    await turn('lead@crew', X, 'after restart');
    expect(transcript(X)).toContain('ACK in the source');

    // X open in a hand-started process elsewhere (the seat stopped): refused, nothing created.
    expect((await w.cli(['stop', 'lead@crew'])).code).toBe(0);
    await waitForExit(again.pid!, 10_000);
    const t = new TestTmux('rdt-hand');
    others.push(t);
    const hand = t.newSession('mine', standInArgv('claude', ['--resume', X]), { cwd: work });
    await waitFor(() => readFileSync(`/proc/${hand.panePid}/cmdline`, 'utf8').startsWith('claude'), {
      what: 'hand stand-in',
    });
    const refused = await w.cli(['fork', 'lead@crew', '--as', 'third', '--json']);
    expect(refused.json).toMatchObject({ ok: false, code: 'CONVERSATION_LIVE_ELSEWHERE' });
    expect(refused.json.evidence.owners[0]).toMatchObject({ paneId: hand.paneId, conversationId: X });
    expect(e.store.rigs.seat('third@crew')).toBeUndefined();
    expect(
      w
        .sessions()
        .map((s) => s.seat)
        .sort(),
    ).toEqual(['helper@crew']);
  }, 300_000);
});
