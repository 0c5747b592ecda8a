import { randomUUID } from 'node:crypto';
import {
  accessSync,
  constants,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  realpathSync,
  rmSync,
  symlinkSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { delimiter, dirname, join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  CLAUDE_BIN,
  type ClaudeFixture,
  claudeProcessEnv,
  claudeProjectSlug,
  makeClaudeFixture,
} from './claude-fixture';
import { runClaude } from './claude-run';
import { closedPort, type FakeModelServer, startFakeModelServer } from './fake-model-server';

describe('claude fixture: seeded files and environment', () => {
  let fx: ClaudeFixture;
  let work: string;
  beforeAll(() => {
    work = realpathSync(mkdtempSync(join(tmpdir(), 'rd-claude-work-')));
    fx = makeClaudeFixture({ serverUrl: 'http://127.0.0.1:1', closedPort: 9, trustedCwds: [work] });
  });
  afterAll(() => {
    fx.cleanup();
    rmSync(work, { recursive: true, force: true });
  });

  it('CLAUDE_BIN is the project devDependency binary and is executable', () => {
    expect(CLAUDE_BIN.endsWith(join('node_modules', '.bin', 'claude'))).toBe(true);
    accessSync(CLAUDE_BIN, constants.X_OK);
  });

  it('seeds .claude.json so no onboarding, trust or API-key dialog appears, and settings.json skips the bypass warning', () => {
    const state = JSON.parse(readFileSync(join(fx.configDir, '.claude.json'), 'utf8'));
    expect(state.hasCompletedOnboarding).toBe(true);
    expect(state.customApiKeyResponses.approved).toEqual([fx.env.ANTHROPIC_API_KEY!.slice(-20)]);
    expect(state.projects[work]).toMatchObject({ hasTrustDialogAccepted: true });
    const settings = JSON.parse(readFileSync(join(fx.configDir, 'settings.json'), 'utf8'));
    expect(settings.skipDangerousModePermissionPrompt).toBe(true);
  });

  it('trust() adds a folder without dropping earlier ones', () => {
    const extra = join(fx.root, 'extra');
    mkdirSync(extra);
    fx.trust(extra);
    const state = JSON.parse(readFileSync(join(fx.configDir, '.claude.json'), 'utf8'));
    expect(state.projects[extra].hasTrustDialogAccepted).toBe(true);
    expect(state.projects[work].hasTrustDialogAccepted).toBe(true);
  });

  it('env isolates HOME and CLAUDE_CONFIG_DIR under root, points at the server, and proxies everything else to the closed port', () => {
    expect(fx.env).toMatchObject({
      HOME: fx.home,
      CLAUDE_CONFIG_DIR: fx.configDir,
      ANTHROPIC_BASE_URL: 'http://127.0.0.1:1',
      CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC: '1',
      DISABLE_AUTOUPDATER: '1',
      DISABLE_TELEMETRY: '1',
      DISABLE_ERROR_REPORTING: '1',
      HTTPS_PROXY: 'http://127.0.0.1:9',
      HTTP_PROXY: 'http://127.0.0.1:9',
      https_proxy: 'http://127.0.0.1:9',
      http_proxy: 'http://127.0.0.1:9',
      NO_PROXY: '127.0.0.1,localhost',
      no_proxy: '127.0.0.1,localhost',
    });
    for (const k of ['HOME', 'CLAUDE_CONFIG_DIR', 'TMPDIR'] as const) expect(fx.env[k]!.startsWith(fx.root)).toBe(true);
    expect(fx.env.PATH!.split(delimiter)[0]).toBe(dirname(CLAUDE_BIN));
    expect(fx.liveStateDir).toBe(join(fx.configDir, 'sessions'));
  });

  it('claudeProcessEnv drops the runner’s own agent and proxy variables', () => {
    const saved = { ...process.env };
    process.env.ANTHROPIC_AUTH_TOKEN = 'leak';
    process.env.CLAUDECODE = '1';
    process.env.ALL_PROXY = 'http://elsewhere:1';
    try {
      const env = claudeProcessEnv(fx);
      expect(env.ANTHROPIC_AUTH_TOKEN).toBeUndefined();
      expect(env.CLAUDECODE).toBeUndefined();
      expect(env.ALL_PROXY).toBeUndefined();
      expect(env.ANTHROPIC_API_KEY).toBe(fx.env.ANTHROPIC_API_KEY);
    } finally {
      process.env = saved;
    }
  });

  it('claudeProjectSlug turns every non-alphanumeric into "-" and hashes names over 200 characters', () => {
    expect(claudeProjectSlug('/tmp/a.b_c d-e')).toBe('-tmp-a-b-c-d-e');
    expect(claudeProjectSlug('/tmp/Ünï')).toBe('-tmp--n-');
    const long = `/tmp/agx/w/${'x'.repeat(120)}/${'y'.repeat(100)}`;
    expect(claudeProjectSlug(long)).toBe(`${long.replace(/[^a-zA-Z0-9]/g, '-').slice(0, 200)}-186es3`);
  });

  it('cleanup() removes the root it created', () => {
    const other = makeClaudeFixture({ serverUrl: 'http://127.0.0.1:1', closedPort: 9 });
    expect(existsSync(other.configDir)).toBe(true);
    other.cleanup();
    expect(existsSync(other.root)).toBe(false);
  });
});

describe('claude fixture: transcriptPath matches where the real CLI writes', () => {
  let server: FakeModelServer;
  let fx: ClaudeFixture;
  let work: string;
  beforeAll(async () => {
    server = await startFakeModelServer();
    work = realpathSync(mkdtempSync(join(tmpdir(), 'rd-claude-slug-')));
    fx = makeClaudeFixture({ serverUrl: server.url, closedPort: await closedPort() });
  });
  afterAll(async () => {
    fx.cleanup();
    rmSync(work, { recursive: true, force: true });
    await server.close();
  });

  it('for cwds with ".", "_", spaces, non-ASCII letters, over 200 characters, and through a symlink', async () => {
    const cwds = {
      punctuation: join(work, 'dots.and_under scores-x'),
      unicode: join(work, 'Ünïcødé'),
      long: join(work, 'x'.repeat(120), 'y'.repeat(100)),
      symlink: join(work, 'link-to-plain'),
    };
    mkdirSync(join(work, 'plain'));
    symlinkSync(join(work, 'plain'), cwds.symlink);
    for (const d of Object.values(cwds)) mkdirSync(d, { recursive: true });
    expect(claudeProjectSlug(cwds.long).length).toBeGreaterThan(200);

    const runs = await Promise.all(
      Object.entries(cwds).map(async ([what, cwd]) => {
        const id = randomUUID();
        const r = await runClaude(fx, cwd, ['-p', '--session-id', id, `slug ${what}`]);
        return { what, cwd, id, ...r };
      }),
    );
    for (const r of runs) {
      expect({ what: r.what, code: r.code, out: r.stdout.trim() }).toEqual({
        what: r.what,
        code: 0,
        out: `ACK slug ${r.what}`,
      });
      const file = fx.transcriptPath(r.cwd, r.id);
      expect(existsSync(file), `${r.what}: ${file}`).toBe(true);
      expect(readFileSync(file, 'utf8')).toContain(`ACK slug ${r.what}`);
    }
    // The symlinked cwd is filed under its target.
    expect(fx.transcriptPath(cwds.symlink, 'x')).toBe(
      join(fx.configDir, 'projects', claudeProjectSlug(join(work, 'plain')), 'x.jsonl'),
    );
    for (const r of server.requests) expect(['127.0.0.1', '::ffff:127.0.0.1']).toContain(r.remoteAddress);
  });
});
