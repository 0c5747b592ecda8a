/**
 * What each real agent CLI records of a reply's token usage, read by the engine's own readers
 * (src/main/engine/usage) from the file or database the runtime adapter says holds the
 * conversation. Each CLI answers one prompt headless; the fake model server reports figures the
 * prompt names (`USAGE:<in>:<out>:<cacheRead>:<cacheWrite>`), different for each CLI, and the
 * reader must come to exactly those: input with its cached part (and Anthropic's cache writes),
 * output; the context share only where the runtime records the window (Codex) or declares it for
 * the model (Pi's models.json).
 */
import { mkdirSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { liveEvidenceIO } from '../../src/main/engine/evidence-io';
import { runtimeById } from '../../src/main/engine/runtimes';
import { liveOpencodeQuery } from '../../src/main/engine/usage/opencode';
import { liveTailIO } from '../../src/main/engine/usage/tail';
import { usageFields } from '../../src/main/engine/usage/types';
import { UsageWatch } from '../../src/main/engine/usage/watch';
import { cliProblem, expectOnlyLoopback, failEachTestIf, type AgentRuntime } from '../journeys/support';
import { runAgent } from './agent-run';
import { CLAUDE_BIN, makeClaudeFixture } from './claude-fixture';
import { CODEX_BIN, makeCodexFixture } from './codex-fixture';
import { closedPort, type FakeModelServer, startFakeModelServer } from './fake-model-server';
import { GEMINI_BIN, makeGeminiFixture } from './gemini-fixture';
import { type LocalProxy, startLocalProxy } from './local-proxy';
import { makeOpencodeFixture, OPENCODE_BIN } from './opencode-fixture';
import { makePiFixture, PI_BIN } from './pi-fixture';
import { makeQwenFixture, QWEN_BIN } from './qwen-fixture';

const ID = '7e1d2c3b-4a59-4867-9876-0123456789ab';

/** The watch as the engine builds it, minus the engine: the adapters locate, the readers read. */
function readUsage(runtime: string, home: string, cwd: string, conversationId: string) {
  const watch = new UsageWatch({
    tail: liveTailIO,
    opencode: liveOpencodeQuery,
    locate: (t) => runtimeById(t.runtime)?.transcriptPath?.(t.home, t.cwd, t.conversationId, liveEvidenceIO),
    readConfig: (p) => {
      try {
        return liveEvidenceIO.readFile(p);
      } catch {
        return undefined;
      }
    },
    now: () => Date.now(),
  });
  return usageFields(watch.read({ runtime, home, cwd, conversationId }));
}

describe('token usage as each real CLI records it, read by the engine', () => {
  const installed = failEachTestIf(() =>
    (['claude-code', 'codex', 'pi', 'opencode', 'gemini', 'qwen'] as AgentRuntime[])
      .map((r) => cliProblem(r))
      .find((p) => p !== undefined),
  );
  let server: FakeModelServer;
  let closed: number;
  let proxy: LocalProxy;
  const cleanups: (() => void)[] = [];
  beforeAll(async () => {
    server = await startFakeModelServer();
    closed = await closedPort();
    proxy = await startLocalProxy();
  });
  afterAll(async () => {
    for (const c of cleanups) c();
    await proxy?.close();
    await server?.close();
    if (server && installed()) expectOnlyLoopback(server);
  });
  const base = () => ({ serverUrl: server.url, closedPort: closed });
  /** The fake server's log says it reported these figures to that CLI. */
  const reported = (agent: RegExp, usage: string) => {
    const [input, output, cacheRead, cacheWrite] = usage.split(':').slice(1).map(Number);
    expect(server.requests.filter((r) => agent.test(r.userAgent ?? '')).map((r) => r.usage)).toContainEqual({
      input,
      output,
      cacheRead,
      cacheWrite,
    });
  };
  const work = (root: string) => {
    const dir = join(root, 'work');
    mkdirSync(dir, { recursive: true });
    return dir;
  };

  it('Claude Code: input, cache writes and cache reads in; output out; no window in the transcript', async () => {
    const fx = makeClaudeFixture(base());
    cleanups.push(() => fx.cleanup());
    const cwd = work(fx.root);
    fx.trust(cwd);
    const r = await runAgent(
      CLAUDE_BIN,
      fx.env,
      cwd,
      ['-p', '--session-id', ID, 'hi USAGE:61001:733:4100:1300'],
      90_000,
    );
    expect(r.code, r.stderr).toBe(0);
    reported(/^claude-cli\//, 'USAGE:61001:733:4100:1300');
    expect(readUsage('claude-code', fx.configDir, cwd, ID)).toEqual({ tokensIn: 61001 + 4100 + 1300, tokensOut: 733 });
  });

  it('Codex: its running totals (cached input inside input_tokens) and the window it records', async () => {
    const fx = makeCodexFixture({ ...base(), trustedCwds: [] });
    cleanups.push(() => fx.cleanup());
    const cwd = work(fx.root);
    const r = await runAgent(
      CODEX_BIN,
      fx.env,
      cwd,
      ['exec', '--skip-git-repo-check', 'hi USAGE:52301:417:3400'],
      90_000,
    );
    expect(r.code, r.stderr).toBe(0);
    const thread = /^session id: (\S+)$/m.exec(r.stderr)![1]!;
    reported(/^codex_exec\//, 'USAGE:52301:417:3400:0');
    // 52301 + 417 of the 258400 Codex records for this model.
    expect(readUsage('codex', fx.codexHome, cwd, thread)).toEqual({
      tokensIn: 52301,
      tokensOut: 417,
      contextPct: 20.4,
    });
  });

  it('Pi: input, cache reads and writes in, output out; the window its models.json declares', async () => {
    const fx = makePiFixture(base());
    cleanups.push(() => fx.cleanup());
    const cwd = work(fx.root);
    const r = await runAgent(PI_BIN, fx.env, cwd, ['-p', 'hi USAGE:70001:555:2000'], 90_000);
    expect(r.code, r.stderr).toBe(0);
    const file = readdirSync(fx.sessionDirFor(cwd))[0]!;
    reported(/^OpenAI\/JS/, 'USAGE:70001:555:2000:0');
    // (70001 + 555) / 128000, the fixture's contextWindow for fake-model.
    expect(readUsage('pi', fx.agentDir, cwd, /_([^_]+)\.jsonl$/.exec(file)![1]!)).toEqual({
      tokensIn: 70001,
      tokensOut: 555,
      contextPct: 55.1,
    });
  });

  it("OpenCode: the session's step-finish parts in its database; the title it asks for beside them is not the conversation's", async () => {
    const fx = makeOpencodeFixture({ ...base(), trustedCwds: [] });
    cleanups.push(() => fx.cleanup());
    const cwd = work(fx.root);
    const r = await runAgent(OPENCODE_BIN, { ...fx.env, PWD: cwd }, cwd, ['run', 'hi USAGE:40001:321:1000'], 90_000);
    expect(r.code, r.stderr).toBe(0);
    const [session] = fx.sessionsIn(cwd);
    reported(/^opencode\//, 'USAGE:40001:321:1000:0');
    expect(readUsage('opencode', fx.dataHome, cwd, session!.id)).toEqual({ tokensIn: 40001, tokensOut: 321 });
  }, 120_000);

  it('Gemini CLI: the tokens of its reply records (cached inside input); no window recorded', async () => {
    const fx = makeGeminiFixture(base());
    cleanups.push(() => fx.cleanup());
    const cwd = work(fx.root);
    const r = await runAgent(GEMINI_BIN, fx.env, cwd, ['--session-id', ID, '-p', 'hi USAGE:30001:222:500'], 120_000);
    expect(r.code, r.stderr).toBe(0);
    reported(/^GeminiCLI/, 'USAGE:30001:222:500:0');
    expect(readUsage('gemini', fx.home, cwd, ID)).toEqual({ tokensIn: 30001, tokensOut: 222 });
  }, 150_000);

  it('Qwen Code: the usageMetadata of its assistant records, not its memory extraction beside them; no window recorded', async () => {
    const fx = makeQwenFixture(base());
    cleanups.push(() => fx.cleanup());
    const cwd = work(fx.root);
    fx.writeProxySetting(proxy.url);
    const r = await runAgent(QWEN_BIN, fx.env, cwd, ['-p', '--session-id', ID, 'hi USAGE:20001:111:700'], 120_000);
    expect(r.code, r.stderr).toBe(0);
    reported(/^QwenCode\//, 'USAGE:20001:111:700:0');
    expect(readUsage('qwen', fx.qwenHome, cwd, ID)).toEqual({ tokensIn: 20001, tokensOut: 111 });
  }, 150_000);
});
