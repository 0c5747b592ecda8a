import { existsSync, mkdirSync, readFileSync, realpathSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it, onTestFailed } from 'vitest';
import { type ClaudeFixture, makeClaudeFixture } from '../agents/claude-fixture';
import { closedPort, type FakeModelServer, startFakeModelServer } from '../agents/fake-model-server';
import { claudeRigYaml } from '../support/claude-rig';
import { TestRepo } from '../support/git-repo';
import { RigWorld } from '../support/rig';
import { waitFor } from '../support/tmux';

/**
 * A real Claude Code seat with `worktree: true` (fake model server, offline home): it runs in its
 * own worktree, a file it writes through its own tool (a shell tool call, approved at its prompt)
 * lands there and nowhere else, and `rigdesk changes` reports it.
 */
describe("a real Claude Code seat's work in its own worktree", () => {
  let server: FakeModelServer;
  let closed: number;
  let w: RigWorld;
  let fx: ClaudeFixture;
  let repo: TestRepo;
  beforeAll(async () => {
    server = await startFakeModelServer();
    closed = await closedPort();
  });
  afterAll(async () => {
    await server.close();
    expect(server.requests.every((r) => ['127.0.0.1', '::ffff:127.0.0.1'].includes(r.remoteAddress))).toBe(true);
  });
  beforeEach(() => {
    w = new RigWorld();
    mkdirSync(join(w.root, 'work'), { recursive: true });
    repo = new TestRepo('rd-wtc-');
    repo.write('README.md', 'hello\n');
    repo.commitAll('base');
  });
  afterEach(async () => {
    await w.shutdown();
    repo.remove();
  });

  it('writes through its tool into its worktree, and changes reports the file', async () => {
    const tree = join(realpathSync(w.root), 'home', 'worktrees', 'act', 'lead');
    fx = makeClaudeFixture({
      serverUrl: server.url,
      closedPort: closed,
      trustedCwds: [tree],
      root: join(w.root, 'claude'),
    });
    const yaml = claudeRigYaml(fx)
      .replace('cwd: ./work', `cwd: ${JSON.stringify(repo.dir)}`)
      .replace('runtime: claude-code', 'runtime: claude-code\n        worktree: true');
    const up = await w.cli(['up', w.spec('rig.yaml', yaml), '--json']);
    expect(up.code, up.stdout + up.stderr).toBe(0);
    const screen = () => {
      const s = w.tmux.capture('lead@act');
      last = s;
      return s;
    };
    let last = '';
    onTestFailed(() => console.error(`[claude worktree] last screen:\n${last}`));
    await waitFor(() => screen().includes('? for shortcuts'), { timeoutMs: 60_000, what: "Claude's idle footer" });
    const sent = await w.cli([
      'send',
      'lead@act',
      'RUN: echo edited-by-claude > from-claude.txt',
      '--wait-for-idle',
      '60',
    ]);
    expect(sent.code, sent.stdout + sent.stderr).toBe(0);
    await waitFor(() => screen().includes('Do you want to proceed?'), {
      timeoutMs: 60_000,
      what: 'the permission prompt',
    });
    w.tmux.run(['send-keys', '-t', 'lead@act', 'Enter']);
    await waitFor(() => existsSync(join(tree, 'from-claude.txt')), { timeoutMs: 60_000, what: "Claude's file" });
    expect(readFileSync(join(tree, 'from-claude.txt'), 'utf8')).toBe('edited-by-claude\n');
    expect(existsSync(join(repo.dir, 'from-claude.txt'))).toBe(false);

    const ch = await w.cli(['changes', 'lead@act', '--json']);
    expect(ch.code, ch.stdout + ch.stderr).toBe(0);
    expect(ch.json.seats[0]).toMatchObject({
      seat: 'lead@act',
      worktree: tree,
      branch: 'rigdesk/act/lead',
      files: [{ path: 'from-claude.txt', status: 'added', added: 1, removed: 0 }],
    });
  }, 240_000);
});
