/**
 * Smoke tests against the real Claude Code CLI (node_modules/.bin/claude), offline: a fake model
 * server on 127.0.0.1, every proxy variable pointing at a closed local port, an isolated HOME and
 * CLAUDE_CONFIG_DIR, and a private tmux server.
 */
import { randomUUID } from 'node:crypto';
import { existsSync, mkdtempSync, readFileSync, realpathSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { TestTmux, waitFor } from '../support/tmux';
import { CLAUDE_BIN, type ClaudeFixture, makeClaudeFixture } from './claude-fixture';
import { killTmuxServer, processAlive, runClaude, startInTmux, waitForExit } from './claude-run';
import { closedPort, type FakeModelServer, startFakeModelServer } from './fake-model-server';

const LOCAL = ['127.0.0.1', '::ffff:127.0.0.1'];

describe('real Claude Code against the fake model server', () => {
  let server: FakeModelServer;
  let fx: ClaudeFixture;
  let work: string;
  let tmux: TestTmux | undefined;
  let claudePid: number | undefined;
  let liveFile: string | undefined;
  let socketPath: string | undefined;

  beforeAll(async () => {
    server = await startFakeModelServer();
    work = realpathSync(mkdtempSync(join(tmpdir(), 'rd-claude-cwd-')));
    fx = makeClaudeFixture({ serverUrl: server.url, closedPort: await closedPort(), trustedCwds: [work] });
  });

  afterAll(async () => {
    if (tmux) killTmuxServer(tmux);
    if (claudePid !== undefined) await waitForExit(claudePid);
    await server?.close();
    fx?.cleanup();
    if (work) rmSync(work, { recursive: true, force: true });
  });

  it('claude -p "hello" prints "ACK hello"', async () => {
    const r = await runClaude(fx, work, ['-p', 'hello']);
    expect({ code: r.code, stdout: r.stdout.trim() }, `stderr: ${r.stderr}`).toEqual({ code: 0, stdout: 'ACK hello' });
    const mine = server.requests.filter((q) => q.route === 'messages');
    expect(mine.length).toBeGreaterThan(0);
    expect(mine[0]!.path).toBe('/v1/messages?beta=true');
    expect(mine[0]!.userAgent).toMatch(/^claude-cli\/\d+\.\d+\.\d+ /);
  });

  it('interactive claude --session-id in tmux: idle screen, typed prompt answered, transcript and live-state file name the session', async () => {
    tmux = new TestTmux('rdt-claude');
    const sessionId = randomUUID();
    const { paneId, panePid } = startInTmux(tmux, fx, 'claude1', work, [CLAUDE_BIN, '--session-id', sessionId]);
    claudePid = panePid;
    const screen = () => tmux!.capture(paneId);

    await waitFor(() => screen().includes('? for shortcuts'), { timeoutMs: 30_000, what: 'claude idle footer' }).catch(
      (e: unknown) => {
        throw new Error(`${String(e)}\n--- screen ---\n${screen()}`);
      },
    );
    // No first-run dialog got in the way.
    expect(screen()).not.toMatch(/trust this folder|Do you want to use this API key|Bypass Permissions mode/i);

    tmux.run(['send-keys', '-t', paneId, '-l', 'hello tmux']);
    tmux.run(['send-keys', '-t', paneId, 'Enter']);
    await waitFor(() => screen().includes('ACK hello tmux'), { timeoutMs: 30_000, what: 'ACK on screen' }).catch(
      (e: unknown) => {
        throw new Error(`${String(e)}\n--- screen ---\n${screen()}`);
      },
    );

    const transcript = fx.transcriptPath(work, sessionId);
    await waitFor(() => existsSync(transcript) && readFileSync(transcript, 'utf8').includes('ACK hello tmux'), {
      timeoutMs: 10_000,
      what: `reply in ${transcript}`,
    });
    const lines = readFileSync(transcript, 'utf8')
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l) as Record<string, unknown>);
    expect(
      lines.filter((l) => l.type === 'user' || l.type === 'assistant').every((l) => l.sessionId === sessionId),
    ).toBe(true);

    socketPath = tmux.run(['display-message', '-p', '#{socket_path}']).trim();
    liveFile = join(fx.liveStateDir, `${panePid}.json`);
    expect(existsSync(liveFile)).toBe(true);
    const live = JSON.parse(readFileSync(liveFile, 'utf8'));
    expect(live).toMatchObject({ pid: panePid, sessionId, cwd: work, kind: 'interactive' });
    expect(processAlive(panePid)).toBe(true);
  });

  it('after the tmux server is killed claude exits and removes its live-state file; every request it sent came from 127.0.0.1', async () => {
    if (tmux) killTmuxServer(tmux);
    if (claudePid !== undefined) expect(await waitForExit(claudePid)).toBe('exited');
    if (liveFile) await waitFor(() => !existsSync(liveFile!), { timeoutMs: 5_000, what: `${liveFile} removed` });
    if (socketPath) expect(existsSync(socketPath)).toBe(false);
    expect(server.requests.length).toBeGreaterThan(1);
    for (const r of server.requests) expect(LOCAL).toContain(r.remoteAddress);
    expect(new Set(server.requests.map((r) => r.route))).toEqual(new Set(['messages']));
  });
});
