/**
 * An isolated home for the real Pi coding agent (docs/agent-clis.md §4): its own HOME,
 * PI_CODING_AGENT_DIR, TMPDIR and XDG dirs under one temp folder, a `fake` openai-completions
 * provider at a fake model server on 127.0.0.1, every proxy variable sending anything else to a
 * closed local port, offline switches on, and provider retries off (`retry.provider.maxRetries: 0`;
 * without it the OpenAI SDK sleeps for the whole `retry-after` of a 429, uninterruptibly).
 */
import { mkdirSync, mkdtempSync, readdirSync, realpathSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { delimiter, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { sandboxNetworkEnv } from './fake-model-server';

/** The project's own Pi (devDependency; `dist/cli.js`, a node script that renames itself `pi`). */
export const PI_BIN: string = fileURLToPath(new URL('../../node_modules/.bin/pi', import.meta.url));
const PROJECT_BIN_DIR = fileURLToPath(new URL('../../node_modules/.bin', import.meta.url));

/** The version the tests were written against. */
export const PI_VERSION = '0.73.1';

export interface PiFixture {
  root: string;
  home: string;
  /** PI_CODING_AGENT_DIR: models.json, settings.json, auth.json, sessions/ */
  agentDir: string;
  /** TMPDIR */
  tmp: string;
  /**
   * Everything a pi process needs: HOME, PI_CODING_AGENT_DIR, TMPDIR, XDG_*, PI_OFFLINE,
   * PI_SKIP_VERSION_CHECK, PI_TELEMETRY, the proxies (closed port) and PATH with node_modules/.bin first.
   */
  env: Record<string, string>;
  /**
   * `$PI_CODING_AGENT_DIR/sessions/--<realpath of cwd minus its leading "/", then "/", "\\" and ":" → "-">--`
   * (Pi's getDefaultSessionDir; Pi creates the folder at startup, the file only later).
   */
  sessionDirFor(cwd: string): string;
  /** `<sessionDirFor(cwd)>/<ISO ts>_<id>.jsonl`, if it exists. */
  sessionFileFor(cwd: string, id: string): string | undefined;
  cleanup(): void;
}

export interface PiFixtureOptions {
  serverUrl: string;
  closedPort: number;
  /** Use this folder instead of a fresh temp folder (it is not deleted by cleanup, only what we made in it). */
  root?: string;
}

function realOrSame(p: string): string {
  try {
    return realpathSync(p);
  } catch {
    return p;
  }
}

const json = (v: unknown): string => `${JSON.stringify(v, null, 2)}\n`;

export function makePiFixture(opts: PiFixtureOptions): PiFixture {
  const ownRoot = opts.root === undefined;
  const root = realOrSame(opts.root ?? mkdtempSync(join(tmpdir(), 'rd-pi-')));
  const home = join(root, 'home');
  const agentDir = join(root, 'agent');
  const tmp = join(root, 'tmp');
  for (const d of [home, agentDir, tmp]) mkdirSync(d, { recursive: true });

  writeFileSync(
    join(agentDir, 'models.json'),
    json({
      providers: {
        fake: {
          baseUrl: `${opts.serverUrl}/v1`,
          api: 'openai-completions',
          apiKey: 'fake-key',
          compat: { supportsDeveloperRole: false, supportsReasoningEffort: false },
          models: [{ id: 'fake-model', name: 'Fake Model', contextWindow: 128000, maxTokens: 4096 }],
        },
      },
    }),
  );
  writeFileSync(
    join(agentDir, 'settings.json'),
    json({
      defaultProvider: 'fake',
      defaultModel: 'fake-model',
      enableInstallTelemetry: false,
      retry: { enabled: true, maxRetries: 1, baseDelayMs: 1000, provider: { maxRetries: 0 } },
    }),
  );

  const env: Record<string, string> = {
    HOME: home,
    PI_CODING_AGENT_DIR: agentDir,
    TMPDIR: tmp,
    XDG_CONFIG_HOME: join(home, '.config'),
    XDG_CACHE_HOME: join(home, '.cache'),
    XDG_DATA_HOME: join(home, '.local', 'share'),
    XDG_STATE_HOME: join(home, '.local', 'state'),
    PI_OFFLINE: '1',
    PI_SKIP_VERSION_CHECK: '1',
    PI_TELEMETRY: '0',
    ...sandboxNetworkEnv(opts.closedPort),
    PATH: [PROJECT_BIN_DIR, process.env.PATH ?? '/usr/local/bin:/usr/bin:/bin'].join(delimiter),
  };

  const sessionDirFor = (cwd: string): string =>
    join(
      agentDir,
      'sessions',
      `--${realOrSame(cwd)
        .replace(/^[/\\]/, '')
        .replace(/[/\\:]/g, '-')}--`,
    );

  return {
    root,
    home,
    agentDir,
    tmp,
    env,
    sessionDirFor,
    sessionFileFor(cwd: string, id: string) {
      const dir = sessionDirFor(cwd);
      let names: string[];
      try {
        names = readdirSync(dir);
      } catch {
        return undefined;
      }
      const hit = names.find((f) => f.endsWith(`_${id}.jsonl`));
      return hit ? join(dir, hit) : undefined;
    },
    cleanup() {
      if (ownRoot) rmSync(root, { recursive: true, force: true });
      else for (const d of [home, agentDir, tmp]) rmSync(d, { recursive: true, force: true });
    },
  };
}
