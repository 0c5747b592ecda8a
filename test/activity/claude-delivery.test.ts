/**
 * Issue 4 acceptance, safe delivery with the real Claude Code CLI: a send to a seat at a
 * permission prompt is held; to a seat with a person's draft is held; to a busy seat with
 * --wait-for-idle 30 is delivered after the turn ends. Nothing is typed when it is held.
 */
import { mkdirSync, readFileSync, realpathSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { makeClaudeFixture, type ClaudeFixture } from '../agents/claude-fixture';
import { closedPort, startFakeModelServer, type FakeModelServer } from '../agents/fake-model-server';
import { RigWorld } from '../support/rig';
import { waitFor } from '../support/tmux';
import { claudeRigYaml } from '../support/claude-rig';
import { verifySubmitted } from '../../src/main/engine/delivery/verify';
import { dispatch } from '../../src/main/engine/api';

describe('safe delivery to a real Claude Code seat', () => {
  let server: FakeModelServer;
  let closed: number;
  let w: RigWorld;
  let fx: ClaudeFixture;
  let work: string;
  let conversation: string;
  beforeAll(async () => {
    server = await startFakeModelServer({ slowChunks: 5, slowMs: 1000 });
    closed = await closedPort();
  });
  afterAll(async () => {
    await server.close();
    expect(server.requests.every((r) => ['127.0.0.1', '::ffff:127.0.0.1'].includes(r.remoteAddress))).toBe(true);
  });
  beforeEach(async () => {
    w = new RigWorld();
    mkdirSync(join(w.root, 'work'), { recursive: true });
    work = realpathSync(join(w.root, 'work'));
    fx = makeClaudeFixture({
      serverUrl: server.url,
      closedPort: closed,
      trustedCwds: [work],
      root: join(w.root, 'claude'),
    });
    const up = await w.cli(['up', w.spec('rig.yaml', claudeRigYaml(fx)), '--json']);
    expect(up.code, up.stdout + up.stderr).toBe(0);
    conversation = up.json.seats[0].launched.conversationId;
    await waitFor(async () => (await w.cli(['ps', '--json'])).json.seats[0].activity === 'idle', {
      timeoutMs: 45_000,
      what: 'idle',
    });
  });
  afterEach(async () => {
    await w.shutdown();
  });

  const transcript = () => readFileSync(fx.transcriptPath(work, conversation), 'utf8');
  const type = (text: string) => {
    w.tmux.run(['send-keys', '-t', 'lead@act', '-l', text]);
    w.tmux.run(['send-keys', '-t', 'lead@act', 'Enter']);
  };

  it('held at a permission prompt: nothing typed, and the reason says why', async () => {
    type('RUN: touch held.txt');
    await waitFor(async () => (await w.cli(['ps', '--json'])).json.seats[0].needsInput === 'permission', {
      timeoutMs: 30_000,
      what: 'permission',
    });
    const r = await w.cli(['send', 'lead@act', 'do not type me', '--json']);
    expect(r.code).toBe(1);
    expect(r.json).toMatchObject({
      ok: false,
      code: 'SEND_HELD',
      evidence: { status: 'held', why: 'needs_input:permission' },
    });
    expect(w.tmux.capture('lead@act')).not.toContain('do not type me');
    const ev = await w.cli(['events', '--seat', 'lead@act', '--json']);
    expect(ev.json.events.map((e: { kind: string }) => e.kind)).toContain('seat.send_held');
  });

  it("held over a person's draft, and the draft is left as it was", async () => {
    w.tmux.run(['send-keys', '-t', 'lead@act', '-l', 'my own half sentence']);
    await waitFor(async () => (await w.cli(['ps', '--json'])).json.seats[0].draft === true, { what: 'draft seen' });
    const r = await w.cli(['send', 'lead@act', 'automatic text', '--json']);
    expect(r.json).toMatchObject({ code: 'SEND_HELD', evidence: { why: 'draft' } });
    const screen = w.tmux.capture('lead@act');
    expect(screen).toContain('my own half sentence');
    expect(screen).not.toContain('automatic text');
  });

  it('a busy seat: held without waiting; with --wait-for-idle 30 delivered after the turn ends, into the same transcript', async () => {
    type('first SLOW');
    await waitFor(async () => (await w.cli(['ps', '--json'])).json.seats[0].activity === 'working', {
      what: 'working',
    });
    const now = await w.cli(['send', 'lead@act', 'too soon', '--json']);
    expect(now.json).toMatchObject({ code: 'SEND_HELD', evidence: { why: 'working' } });
    const later = await w.cli(['send', 'lead@act', 'after the turn', '--wait-for-idle', '30', '--verify', '--json']);
    expect(later.code, later.stdout).toBe(0);
    expect(later.json.sent).toMatchObject({ status: 'delivered', verified: true });
    await waitFor(() => transcript().includes('ACK after the turn'), {
      timeoutMs: 30_000,
      what: 'reply in the transcript',
    });
    const t = transcript();
    // The slow turn finished before the waiting message went in.
    expect(t.indexOf('tick5')).toBeGreaterThan(-1);
    expect(t.indexOf('tick5')).toBeLessThan(t.indexOf('"after the turn"'));
    expect(t).not.toContain('too soon');
  });

  it('a plain send confirms the text left the input box: an Enter the agent dropped is pressed again; --no-verify does not look (fault: the Enter not sent)', async () => {
    const e = w.engine({ faults: { 'send.drop_enter': () => undefined } });
    const looked = await dispatch(e, 'send', { seat: 'lead@act', text: 'left in the box' });
    expect(looked, JSON.stringify(looked)).toMatchObject({ ok: true, sent: { status: 'delivered', verified: true } });
    await waitFor(() => transcript().includes('ACK left in the box'), { timeoutMs: 30_000, what: 'the reply' });
    await waitFor(async () => (await w.cli(['ps', '--json'])).json.seats[0].activity === 'idle', {
      timeoutMs: 30_000,
      what: 'idle again',
    });
    const blind = await dispatch(e, 'send', { seat: 'lead@act', text: 'nobody looked', verify: false });
    expect(blind).toMatchObject({ ok: true, sent: { verified: false } });
    await waitFor(async () => (await w.cli(['ps', '--json'])).json.seats[0].draft === true, {
      what: 'the unsent text read as a draft',
    });
    expect(transcript()).not.toContain('nobody looked');
  });

  it('verify sends one more Enter when Claude left the text in its input box (fault: the first Enter withheld)', async () => {
    w.tmux.run(['send-keys', '-t', 'lead@act', '-l', 'enter was dropped']);
    const e = w.engine();
    const seat = e.store.rigs.seat('lead@act')!;
    const live = e.store.sessions.live('lead@act')!;
    const v = await verifySubmitted(e.ports, seat, live.server, live.paneId, 'enter was dropped');
    expect(v).toEqual({ ok: true });
    await waitFor(() => transcript().includes('ACK enter was dropped'), { timeoutMs: 30_000, what: 'the reply' });
  });
});
