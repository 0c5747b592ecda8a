/**
 * Issue 2 acceptance with the real Claude Code CLI (devDependency) against the fake model server:
 * a rig of three shell seats and one Claude seat, and the single-writer seed scenario.
 */
import { realpathSync, mkdirSync, readFileSync, writeFileSync, existsSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { CLAUDE_BIN, makeClaudeFixture, type ClaudeFixture } from '../agents/claude-fixture';
import { killTmuxServer, processAlive, waitForExit } from '../agents/claude-run';
import { closedPort, startFakeModelServer, type FakeModelServer } from '../agents/fake-model-server';
import { RigWorld } from '../support/rig';
import { spawnHeadlessStandIn, standInArgv } from '../support/standin';
import { TestTmux, waitFor } from '../support/tmux';

const LOCAL = ['127.0.0.1', '::ffff:127.0.0.1'];

function rigYaml(fx: ClaudeFixture, members: { id: string; runtime: string }[]): string {
  const env = Object.entries(fx.env)
    .map(([k, v]) => `          ${k}: ${JSON.stringify(v)}`)
    .join('\n');
  return `${[
    'name: crew',
    'pods:',
    '  - id: team',
    '    members:',
    ...members.map((m) =>
      m.runtime === 'shell'
        ? `      - { id: ${m.id}, runtime: shell, cwd: ./work, command: bash, args: ["--noprofile", "--norc"] }`
        : `      - id: ${m.id}\n        runtime: ${m.runtime}\n        cwd: ./work\n        env:\n${env}`,
    ),
  ].join('\n')}\n`;
}

describe('a rig with real Claude Code seats', () => {
  let server: FakeModelServer;
  let closed: number;
  let w: RigWorld;
  let fx: ClaudeFixture;
  let work: string;
  const others: TestTmux[] = [];
  const pids: number[] = [];

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
    for (const pid of pids.splice(0)) {
      try {
        process.kill(pid, 'SIGKILL');
      } catch {
        /* gone */
      }
    }
    for (const t of others.splice(0)) killTmuxServer(t);
    // Claude takes a moment to exit after its server goes; wait for every process under every pane
    // (by pid) so none writes into the folder after it is removed.
    await w.shutdown();
  });

  async function waitIdle(seat: string) {
    return waitFor(
      async () => {
        const ps = await w.cli(['ps', '--json']);
        const row = ps.json.seats.find((s: { seat: string }) => s.seat === seat);
        return row?.activity === 'idle' ? row : undefined;
      },
      { timeoutMs: 45_000, what: `${seat} idle` },
    );
  }

  /** A hand-started claude on another tmux server (not Rigdesk's), as a person would run it. */
  function handClaude(args: string[]): { tmux: TestTmux; paneId: string } {
    const t = new TestTmux('rdt-hand');
    others.push(t);
    const s = t.newSession('mine', [CLAUDE_BIN, ...args], { cwd: work, env: fx.env });
    return { tmux: t, paneId: s.paneId };
  }

  it('up creates four sessions (three shell, one claude), ps lists them, down removes exactly those', async () => {
    const spec = w.spec(
      'rig.yaml',
      rigYaml(fx, [
        { id: 'a', runtime: 'shell' },
        { id: 'b', runtime: 'shell' },
        { id: 'c', runtime: 'shell' },
        { id: 'lead', runtime: 'claude-code' },
      ]),
    );
    const up = await w.cli(['up', spec, '--json']);
    expect(up.code, up.stdout + up.stderr).toBe(0);
    expect(
      w
        .sessions()
        .map((s) => s.seat)
        .sort(),
    ).toEqual(['a@crew', 'b@crew', 'c@crew', 'lead@crew']);
    const lead = await waitIdle('lead@crew');
    expect(lead).toMatchObject({ runtime: 'claude-code', state: 'running', activity: 'idle' });
    expect(lead.conversationId).toBe(up.json.seats[3].launched.conversationId);
    const ps = await w.cli(['ps', '--json']);
    expect(ps.json.seats).toHaveLength(4);
    for (const row of ps.json.seats) {
      expect(row.paneId).toMatch(/^%\d+$/);
      expect(row.pid).toBeGreaterThan(1);
      expect(row.activity).toBeDefined();
    }
    // The pid ps reports for the claude seat is the claude process itself.
    expect(readFileSync(`/proc/${lead.pid}/comm`, 'utf8').trim()).toMatch(/^claude/);

    const down = await w.cli(['down', 'crew', '--json']);
    expect(down.code, down.stdout).toBe(0);
    expect(down.json.seats.map((s: { outcome: string }) => s.outcome)).toEqual([
      'removed',
      'removed',
      'removed',
      'removed',
    ]);
    expect(w.sessions()).toEqual([]);
    const ev = await w.cli(['events', '--rig', 'crew', '--json']);
    expect(ev.json.events.filter((e: { kind: string }) => e.kind === 'seat.kill')).toHaveLength(4);
    await waitForExit(lead.pid, 10_000);
  });

  it('seed scenario: a hand-started claude on another server owning X blocks launch and send of the seat bound to X, and killing it releases the guard', async () => {
    const spec = w.spec(
      'rig.yaml',
      rigYaml(fx, [
        { id: 'lead', runtime: 'claude-code' },
        { id: 'other', runtime: 'claude-code' },
      ]),
    );
    const up = await w.cli(['up', spec, '--json']);
    expect(up.code, up.stdout + up.stderr).toBe(0);
    const X = up.json.seats[0].launched.conversationId as string;
    const first = await waitIdle('lead@crew');
    // Give it a turn so the conversation exists on disk, then stop the seat.
    expect((await w.cli(['send', 'lead@crew', 'hello', '--json'])).code).toBe(0);
    await waitFor(
      () =>
        existsSync(fx.transcriptPath(work, X)) &&
        readFileSync(fx.transcriptPath(work, X), 'utf8').includes('ACK hello'),
      { timeoutMs: 30_000, what: 'transcript' },
    );
    expect((await w.cli(['stop', 'lead@crew'])).code).toBe(0);
    await waitForExit(first.pid, 10_000);

    // Someone resumes X by hand in a pane of their own tmux server.
    const hand = handClaude(['--resume', X]);
    await waitFor(() => hand.tmux.capture(hand.paneId).includes('? for shortcuts'), {
      timeoutMs: 45_000,
      what: 'hand claude idle',
    });

    const refused = await w.cli(['launch', 'lead@crew', '--json']);
    expect(refused.code).toBe(1);
    expect(refused.json.code).toBe('CONVERSATION_LIVE_ELSEWHERE');
    const owner = refused.json.evidence.owners[0];
    expect(owner).toMatchObject({ paneId: hand.paneId, runtime: 'claude-code', conversationId: X, headless: false });
    expect(owner.server).toContain(hand.tmux.socketName);
    expect(w.sessions().filter((s) => s.seat === 'lead@crew')).toHaveLength(0);
    const human = await w.cli(['launch', 'lead@crew']);
    expect(human.stderr).toMatch(new RegExp(`CONVERSATION_LIVE_ELSEWHERE.*${hand.paneId}`, 's'));

    // An unrelated conversation is not blocked: the other seat sends fine.
    await waitIdle('other@crew');
    expect((await w.cli(['send', 'other@crew', 'unrelated', '--json'])).json.sent.status).toBe('delivered');

    // Killing the hand pane releases the guard: the seat resumes X.
    const handPid = Number(hand.tmux.run(['display-message', '-p', '-t', hand.paneId, '#{pane_pid}']).trim());
    killTmuxServer(hand.tmux);
    await waitForExit(handPid, 10_000);
    const resumed = await w.cli(['launch', 'lead@crew', '--json']);
    expect(resumed.code, resumed.stdout).toBe(0);
    expect(resumed.json.launched).toMatchObject({ mode: 'resume', conversationId: X });
    await waitIdle('lead@crew');

    // While the seat writes X, a process elsewhere that names X blocks sends into it.
    const t = new TestTmux('rdt-standin');
    others.push(t);
    const si = t.newSession('standin', standInArgv('claude', ['--resume', X]), { cwd: work });
    await waitFor(() => readFileSync(`/proc/${si.panePid}/cmdline`, 'utf8').startsWith('claude'), {
      what: 'stand-in exec',
    });
    const blocked = await w.cli(['send', 'lead@crew', 'second writer?', '--json']);
    expect(blocked.json.code).toBe('CONVERSATION_LIVE_ELSEWHERE');
    expect(blocked.json.evidence.owners.map((o: { paneId: string }) => o.paneId)).toContain(si.paneId);
    killTmuxServer(t);
    await waitForExit(si.panePid, 5000);

    // Headless (outside tmux) counts too.
    const headless = spawnHeadlessStandIn('claude', ['-p', '--resume', X, 'x']);
    pids.push(headless.pid!);
    await waitFor(
      () => processAlive(headless.pid!) && readFileSync(`/proc/${headless.pid}/cmdline`, 'utf8').startsWith('claude'),
      { what: 'headless stand-in' },
    );
    const blocked2 = await w.cli(['send', 'lead@crew', 'second writer?', '--json']);
    expect(blocked2.json.code).toBe('CONVERSATION_LIVE_ELSEWHERE');
    expect(blocked2.json.evidence.owners[0]).toMatchObject({ pid: headless.pid, headless: true });
    process.kill(headless.pid!, 'SIGKILL');
    await waitForExit(headless.pid!, 5000);

    // The same id under another runtime is a different conversation.
    const codexLike = spawnHeadlessStandIn('codex', ['resume', X]);
    pids.push(codexLike.pid!);
    await waitFor(() => readFileSync(`/proc/${codexLike.pid}/cmdline`, 'utf8').startsWith('codex'), {
      what: 'codex stand-in',
    });
    const ok = await w.cli(['send', 'lead@crew', 'still mine', '--json']);
    expect(ok.code, ok.stdout).toBe(0);
    await waitFor(() => readFileSync(fx.transcriptPath(work, X), 'utf8').includes('ACK still mine'), {
      timeoutMs: 30_000,
      what: 'reply in the same transcript',
    });
  });

  it('a live-state file naming X for another live pid blocks the seat (claude keeps no lock; the file is the evidence)', async () => {
    const spec = w.spec('rig.yaml', rigYaml(fx, [{ id: 'lead', runtime: 'claude-code' }]));
    const up = await w.cli(['up', spec, '--json']);
    const X = up.json.seats[0].launched.conversationId as string;
    const first = await waitIdle('lead@crew');
    // Claude's own file for the seat's process uses the same clock-tick start time as /proc.
    // (The idle screen can come a moment before Claude writes that file.)
    const ownFile = join(fx.liveStateDir, `${first.pid}.json`);
    await waitFor(() => existsSync(ownFile), {
      timeoutMs: 15_000,
      what: `Claude's live-state file for pid ${first.pid}`,
    });
    const own = JSON.parse(readFileSync(ownFile, 'utf8'));
    const stat = readFileSync(`/proc/${first.pid}/stat`, 'utf8');
    expect(own.procStart).toBe(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[19]);
    expect((await w.cli(['stop', 'lead@crew'])).code).toBe(0);
    await waitForExit(first.pid, 10_000);

    const plain = spawnHeadlessStandIn('python3', []);
    pids.push(plain.pid!);
    await waitFor(() => existsSync(`/proc/${plain.pid}/stat`), { what: 'stand-in' });
    const st = readFileSync(`/proc/${plain.pid}/stat`, 'utf8');
    writeFileSync(
      join(fx.liveStateDir, `${plain.pid}.json`),
      JSON.stringify({
        pid: plain.pid,
        sessionId: X,
        procStart: st.slice(st.lastIndexOf(')') + 2).split(' ')[19],
        status: 'idle',
        kind: 'interactive',
      }),
    );
    const refused = await w.cli(['launch', 'lead@crew', '--json']);
    expect(refused.json.code).toBe('CONVERSATION_LIVE_ELSEWHERE');
    expect(refused.json.evidence.owners[0]).toMatchObject({ pid: plain.pid, source: 'live_state' });
    // A stale file (its pid gone) is not evidence.
    process.kill(plain.pid!, 'SIGKILL');
    await waitForExit(plain.pid!, 5000);
    const launched = await w.cli(['launch', 'lead@crew', '--json']);
    expect(launched.code, launched.stdout).toBe(0);
  });

  it('after /clear the seat is bound to the new conversation its live-state file names, not the one in its argv', async () => {
    const spec = w.spec('rig.yaml', rigYaml(fx, [{ id: 'lead', runtime: 'claude-code' }]));
    const up = await w.cli(['up', spec, '--json']);
    const X = up.json.seats[0].launched.conversationId as string;
    const first = await waitIdle('lead@crew');
    expect((await w.cli(['send', 'lead@crew', 'hello', '--json'])).code).toBe(0);
    await waitFor(() => existsSync(fx.transcriptPath(work, X)), { timeoutMs: 30_000, what: 'transcript' });
    await waitIdle('lead@crew');
    w.tmux.run(['send-keys', '-t', 'lead@crew', '-l', '/clear']);
    w.tmux.run(['send-keys', '-t', 'lead@crew', 'Enter']);
    const liveFile = join(fx.liveStateDir, `${first.pid}.json`);
    const Y = await waitFor(
      () => {
        const id = JSON.parse(readFileSync(liveFile, 'utf8')).sessionId as string;
        return id !== X ? id : undefined;
      },
      { timeoutMs: 30_000, what: 'a new conversation after /clear' },
    );
    // argv still says X; ps must say Y, and the binding is an event.
    expect(readFileSync(`/proc/${first.pid}/cmdline`, 'utf8')).toContain(X);
    const row = await waitFor(
      async () => {
        const r = (await w.cli(['ps', '--json'])).json.seats[0];
        return r.conversationId === Y ? r : undefined;
      },
      { what: 'ps names the new conversation' },
    );
    expect(row.conversationId).toBe(Y);
    const ev = await w.cli(['events', '--seat', 'lead@crew', '--json']);
    expect(ev.json.events.find((e: { kind: string }) => e.kind === 'seat.conversation_bound').data).toMatchObject({
      from: X,
      to: Y,
      source: 'live_state',
    });
    // The old conversation is no longer written by anyone: its argv claim is history.
    const roster = await w.engine().roster();
    expect(roster.claims.filter((c) => c.conversationId === X)).toEqual([]);
    expect(roster.claims.filter((c) => c.conversationId === Y).map((c) => c.source)).toContain('live_state');
  });
});
