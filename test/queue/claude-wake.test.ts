/**
 * Wakes against the real Claude Code CLI (fake model server on 127.0.0.1): the notice arrives as
 * one user turn even when the waker is killed between typing and recording it, and a seat at its
 * usage limit (a real 429) is parked, not typed into.
 */
import { readdirSync, readFileSync, realpathSync, existsSync, mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { spawn } from 'node:child_process';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { makeClaudeFixture, type ClaudeFixture } from '../agents/claude-fixture';
import { closedPort, startFakeModelServer, type FakeModelServer } from '../agents/fake-model-server';
import { RIGDESK_BIN, RigWorld } from '../support/rig';
import { waitFor } from '../support/tmux';
import { add, wake } from './helpers';

/** A one-seat rig (`lead@act`) running Claude with the fixture's isolated config and environment. */
function claudeRigYaml(fx: ClaudeFixture): string {
  const env = Object.entries(fx.env)
    .map(([k, v]) => `          ${k}: ${JSON.stringify(v)}`)
    .join('\n');
  return `name: act\npods:\n  - id: p\n    members:\n      - id: lead\n        runtime: claude-code\n        cwd: ./work\n        env:\n${env}\n`;
}

/** User turns in the seat's transcripts whose text contains `needle`. */
function userTurnsWith(fx: ClaudeFixture, needle: string): number {
  const root = join(fx.configDir, 'projects');
  if (!existsSync(root)) return 0;
  let n = 0;
  for (const dir of readdirSync(root)) {
    for (const f of readdirSync(join(root, dir)).filter((x) => x.endsWith('.jsonl'))) {
      for (const line of readFileSync(join(root, dir, f), 'utf8').split('\n')) {
        if (!line.trim()) continue;
        const m = JSON.parse(line) as { type?: string; message?: { content?: unknown } };
        if (m.type === 'user' && JSON.stringify(m.message?.content ?? '').includes(needle)) n++;
      }
    }
  }
  return n;
}

describe('queue wakes into a real Claude Code seat', () => {
  let server: FakeModelServer;
  let w: RigWorld;
  let fx: ClaudeFixture;
  beforeAll(async () => {
    server = await startFakeModelServer();
  });
  afterAll(async () => {
    await server.close();
    expect(server.requests.every((r) => ['127.0.0.1', '::ffff:127.0.0.1'].includes(r.remoteAddress))).toBe(true);
  });
  beforeEach(async () => {
    w = new RigWorld();
    mkdirSync(join(w.root, 'work'), { recursive: true });
    fx = makeClaudeFixture({
      serverUrl: server.url,
      closedPort: await closedPort(),
      trustedCwds: [realpathSync(join(w.root, 'work'))],
      root: join(w.root, 'claude'),
    });
    const up = await w.cli(['up', w.spec('rig.yaml', claudeRigYaml(fx)), '--json']);
    expect(up.code, up.stdout + up.stderr).toBe(0);
    await waitFor(async () => (await w.cli(['ps', '--json'])).json.seats[0].activity === 'idle', {
      timeoutMs: 30_000,
      what: 'claude idle',
    });
  });
  afterEach(async () => {
    await w.shutdown();
  });

  it("a pass killed after typing into Claude: the next finds the token on Claude's screen, and the notice is one user turn", async () => {
    await add(w, 'lead@act', 'look at the failing build');
    const child = spawn(process.execPath, [RIGDESK_BIN, 'queue', 'wake'], {
      env: { ...w.env, RIGDESK_TEST_FAULT: 'queue.after_wake_typed:pause' },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let err = '';
    child.stderr.on('data', (d: Buffer) => (err += d.toString()));
    const exited = new Promise((r) => child.once('exit', r));
    await waitFor(() => err.includes('paused at queue.after_wake_typed'), {
      timeoutMs: 30_000,
      what: 'paused after typing',
    });
    process.kill(child.pid!, 'SIGKILL');
    await exited;
    await waitFor(() => w.tmux.capture('lead@act').includes('ACK [rigdesk]'), {
      timeoutMs: 30_000,
      what: 'Claude answered the notice',
    });
    const again = await wake(w);
    expect(again[0]).toMatchObject({ seat: 'lead@act', outcome: 'recovered' });
    expect((await wake(w))[0]!.outcome).toBe('already_woken');
    await new Promise((r) => setTimeout(r, 1500));
    expect(userTurnsWith(fx, again[0]!.token!)).toBe(1);
  });

  it('a seat at its usage limit (a real 429) is parked and typed into nothing', async () => {
    w.tmux.run(['send-keys', '-t', 'lead@act', '-l', 'LIMIT please']);
    w.tmux.run(['send-keys', '-t', 'lead@act', 'Enter']);
    await waitFor(async () => (await w.cli(['ps', '--json'])).json.seats[0].needsInput === 'usage_limit', {
      timeoutMs: 30_000,
      what: 'usage limit',
    });
    await add(w, 'lead@act', 'after the limit');
    const r = await wake(w);
    expect(r[0]).toMatchObject({ outcome: 'parked', why: 'needs_input:usage_limit' });
    expect((await wake(w))[0]!.outcome).toBe('not_due');
    await new Promise((res) => setTimeout(res, 1000));
    expect(w.tmux.capture('lead@act')).not.toContain(r[0]!.token!);
    expect(userTurnsWith(fx, '[rigdesk]')).toBe(0);
  });
});
