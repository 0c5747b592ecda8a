/**
 * An isolated, dialog-free home for the real Claude Code CLI (docs/agent-clis.md §2): its own HOME,
 * CLAUDE_CONFIG_DIR and TMPDIR under one temp folder, pointed at a fake model server on 127.0.0.1,
 * with every proxy variable sending anything else to a closed local port.
 */
import { mkdirSync, mkdtempSync, readFileSync, realpathSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { delimiter, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { sandboxNetworkEnv } from './fake-model-server';

/** The project's own Claude Code (devDependency), found relative to this file. */
export const CLAUDE_BIN: string = fileURLToPath(new URL('../../node_modules/.bin/claude', import.meta.url));
const PROJECT_BIN_DIR = fileURLToPath(new URL('../../node_modules/.bin', import.meta.url));

/** The version the seeded `lastOnboardingVersion` names. */
export const CLAUDE_VERSION = '2.1.197';

/** A fake key; the client sends it as `x-api-key`. Approved in `.claude.json` by its last 20 chars. */
export const FAKE_ANTHROPIC_API_KEY = 'sk-ant-api03-fake-key-for-offline-testing-0000000000000000';

export interface ClaudeFixture {
  root: string;
  home: string;
  configDir: string;
  /**
   * Everything a claude process needs: HOME, CLAUDE_CONFIG_DIR, TMPDIR, ANTHROPIC_BASE_URL,
   * ANTHROPIC_API_KEY, the no-traffic switches, the proxies and PATH with node_modules/.bin first.
   */
  env: Record<string, string>;
  /** Marks an extra folder as trusted (`hasTrustDialogAccepted`). */
  trust(cwd: string): void;
  /** `$CLAUDE_CONFIG_DIR/projects/<claudeProjectSlug(realpath of cwd)>/<sessionId>.jsonl` */
  transcriptPath(cwd: string, sessionId: string): string;
  /** `$CLAUDE_CONFIG_DIR/sessions`: one `<pid>.json` per live interactive claude. */
  liveStateDir: string;
  cleanup(): void;
}

export interface ClaudeFixtureOptions {
  serverUrl: string;
  closedPort: number;
  trustedCwds?: string[];
  /** Use this folder instead of a fresh temp folder (it is not deleted by cleanup, only what we made in it). */
  root?: string;
}

// The slug rule lives in the runtime adapter; tests import it from there (one place per runtime).
export { claudeProjectSlug } from '../../src/main/engine/runtimes/claude-code';
import { claudeProjectSlug } from '../../src/main/engine/runtimes/claude-code';

function realOrSame(p: string): string {
  try {
    return realpathSync(p);
  } catch {
    return p;
  }
}

export function makeClaudeFixture(opts: ClaudeFixtureOptions): ClaudeFixture {
  const ownRoot = opts.root === undefined;
  const root = realOrSame(opts.root ?? mkdtempSync(join(tmpdir(), 'rd-claude-')));
  const home = join(root, 'home');
  const configDir = join(root, 'config');
  const tmp = join(root, 'tmp');
  for (const d of [home, configDir, tmp]) mkdirSync(d, { recursive: true });

  const statePath = join(configDir, '.claude.json');
  const projects: Record<string, unknown> = {};
  const state = {
    hasCompletedOnboarding: true,
    lastOnboardingVersion: CLAUDE_VERSION,
    theme: 'dark',
    bypassPermissionsModeAccepted: true,
    customApiKeyResponses: { approved: [FAKE_ANTHROPIC_API_KEY.slice(-20)], rejected: [] },
    projects,
  };
  const save = (): void => writeFileSync(statePath, `${JSON.stringify(state, null, 2)}\n`);
  const trustOne = (cwd: string): void => {
    for (const p of new Set([cwd, realOrSame(cwd)])) {
      projects[p] = { hasTrustDialogAccepted: true, hasCompletedProjectOnboarding: true, allowedTools: [] };
    }
  };
  for (const cwd of opts.trustedCwds ?? []) trustOne(cwd);
  save();
  writeFileSync(
    join(configDir, 'settings.json'),
    `${JSON.stringify({ skipDangerousModePermissionPrompt: true }, null, 2)}\n`,
  );

  const env: Record<string, string> = {
    HOME: home,
    CLAUDE_CONFIG_DIR: configDir,
    TMPDIR: tmp,
    XDG_CONFIG_HOME: join(home, '.config'),
    XDG_CACHE_HOME: join(home, '.cache'),
    XDG_DATA_HOME: join(home, '.local', 'share'),
    XDG_STATE_HOME: join(home, '.local', 'state'),
    ANTHROPIC_BASE_URL: opts.serverUrl,
    ANTHROPIC_API_KEY: FAKE_ANTHROPIC_API_KEY,
    CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC: '1',
    DISABLE_AUTOUPDATER: '1',
    DISABLE_TELEMETRY: '1',
    DISABLE_ERROR_REPORTING: '1',
    ...sandboxNetworkEnv(opts.closedPort),
    PATH: [PROJECT_BIN_DIR, process.env.PATH ?? '/usr/local/bin:/usr/bin:/bin'].join(delimiter),
  };

  return {
    root,
    home,
    configDir,
    env,
    liveStateDir: join(configDir, 'sessions'),
    trust(cwd: string) {
      // Keep whatever the CLI itself wrote into the file since we seeded it.
      try {
        const current = JSON.parse(readFileSync(statePath, 'utf8')) as Record<string, unknown>;
        Object.assign(state, current, { projects: Object.assign(projects, current.projects ?? {}) });
      } catch {
        /* keep our copy */
      }
      trustOne(cwd);
      save();
    },
    transcriptPath(cwd: string, sessionId: string) {
      return join(configDir, 'projects', claudeProjectSlug(realOrSame(cwd)), `${sessionId}.jsonl`);
    },
    cleanup() {
      if (ownRoot) rmSync(root, { recursive: true, force: true });
      else for (const d of [home, configDir, tmp]) rmSync(d, { recursive: true, force: true });
    },
  };
}

/** Variables from the test runner's own environment that must not reach a sandboxed claude. */
const LEAKY = /^(ANTHROPIC_|CLAUDE|OPENAI_|CODEX_|TMUX$|TMUX_PANE$|https?_proxy$|no_proxy$|all_proxy$)/i;

/** The runner's environment minus anything agent- or proxy-related, plus the fixture's env. */
export function claudeProcessEnv(fx: Pick<ClaudeFixture, 'env'>): Record<string, string> {
  const base: Record<string, string> = {};
  for (const [k, v] of Object.entries(process.env)) if (v !== undefined && !LEAKY.test(k)) base[k] = v;
  return { ...base, ...fx.env };
}
