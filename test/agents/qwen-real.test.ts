/**
 * The real Qwen Code CLI (0.15.10), offline against the fake model server: the facts the adapter
 * and the seat settings rest on, each checked where a CLI update would change it.
 *
 * - It ignores NO_PROXY: with only the mandated proxy variables (a closed port, NO_PROXY=127.0.0.1)
 *   it cannot reach the server on 127.0.0.1; with the proxy setting (the loopback-only proxy) it can.
 * - QWEN_HOME is its config and transcript home: nothing lands under HOME/.qwen.
 * - `--session-id` takes the id up front and refuses one in use; `--resume <missing id>` prints the
 *   words the adapter's missingConversation matches, and exits 1.
 */
import { existsSync, mkdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { makeQwenFixture, QWEN_BIN, type QwenFixture } from './qwen-fixture';
import { runAgent } from './agent-run';
import { startLocalProxy, type LocalProxy } from './local-proxy';
import { closedPort, startFakeModelServer, type FakeModelServer } from './fake-model-server';
import { qwen } from '../../src/main/engine/runtimes';
import { failEachTestIf, cliProblem, expectOnlyLoopback } from '../journeys/support';

const ID = 'a1b2c3d4-1111-4222-8333-444455556666';
const MISSING = '00000000-0000-4000-8000-000000000000';

describe('real Qwen Code offline: proxy, home, ids', () => {
  const installed = failEachTestIf(() => cliProblem('qwen'));
  let server: FakeModelServer;
  let proxy: LocalProxy;
  let fx: QwenFixture;
  let work: string;
  beforeAll(async () => {
    server = await startFakeModelServer();
    proxy = await startLocalProxy();
    fx = makeQwenFixture({ serverUrl: server.url, closedPort: await closedPort() });
    work = join(fx.root, 'work');
    mkdirSync(work);
  });
  afterAll(async () => {
    fx?.cleanup();
    await proxy?.close();
    await server?.close();
    if (server && installed()) {
      expectOnlyLoopback(server);
      expect(proxy.denied()).toEqual([]);
    }
  });

  it('ignores NO_PROXY: with only the mandated proxy variables it cannot reach 127.0.0.1, and reaches it through its proxy setting', async () => {
    const before = server.requests.length;
    const blind = await runAgent(QWEN_BIN, fx.env, work, ['-p', 'no proxy setting'], 90_000);
    expect(blind.code).not.toBe(0);
    expect(blind.stdout + blind.stderr).toMatch(/Connection error|fetch failed/);
    expect(server.requests.length, 'nothing reached the fake server').toBe(before);

    fx.writeProxySetting(proxy.url);
    const ok = await runAgent(QWEN_BIN, fx.env, work, ['-p', '--session-id', ID, 'through the proxy'], 90_000);
    expect(ok.code, ok.stderr).toBe(0);
    expect(ok.stdout).toContain('ACK through the proxy');
    expect(proxy.log.filter((l) => l.allowed).length).toBeGreaterThan(0);
  }, 200_000);

  it('QWEN_HOME is its home: the transcript is where the adapter says, and nothing is under HOME/.qwen', () => {
    const path = qwen.transcriptPath!(fx.qwenHome, work, ID, { exists: existsSync } as never);
    expect(path).toBe(fx.transcriptFor(work, ID));
    const first = JSON.parse(readFileSync(path!, 'utf8').split('\n')[0]!) as {
      sessionId: string;
      cwd: string;
      type: string;
    };
    expect(first).toMatchObject({ sessionId: ID, cwd: work, type: 'user' });
    expect(existsSync(join(fx.home, '.qwen', 'projects'))).toBe(false);
  }, 200_000);

  it("--session-id refuses an id already in use; --resume <missing id> says so in the adapter's words and exits 1", async () => {
    const reuse = await runAgent(QWEN_BIN, fx.env, work, ['-p', '--session-id', ID, 'again'], 90_000);
    expect(reuse.code).not.toBe(0);
    expect(reuse.stdout + reuse.stderr).toMatch(new RegExp(`Session Id ${ID} is already in use`));
    expect(qwen.missingConversation.test(reuse.stdout + reuse.stderr)).toBe(false);
    const missing = await runAgent(QWEN_BIN, fx.env, work, ['-p', '--resume', MISSING, 'hello'], 90_000);
    expect(missing.code).toBe(1);
    expect(qwen.missingConversation.exec(missing.stdout + missing.stderr)?.[1]).toBe(MISSING);
  }, 200_000);
});
