/**
 * An isolated home for the real Codex CLI (docs/agent-clis.md §3): its own HOME, CODEX_HOME, TMPDIR
 * and XDG dirs under one temp folder, pointed at a fake model server on 127.0.0.1 (Responses API),
 * every proxy variable sending anything else to a closed local port, and the background app-server
 * daemon disabled (`[features] daemon_auto_start = false`).
 */
import {
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  readlinkSync,
  realpathSync,
  rmSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { delimiter, dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { killPids, pidsWithEnv } from './agent-run';
import { sandboxNetworkEnv } from './fake-model-server';

/** The project's own Codex CLI (devDependency, the node shim), found relative to this file. */
export const CODEX_BIN: string = fileURLToPath(new URL('../../node_modules/.bin/codex', import.meta.url));
const PROJECT_BIN_DIR = fileURLToPath(new URL('../../node_modules/.bin', import.meta.url));

/** The version the tests were written against. */
export const CODEX_VERSION = '0.171.0';

/** Named by `env_key` in config.toml; Codex sends it as `Authorization: Bearer fake-key`. */
export const FAKE_CODEX_API_KEY = 'fake-key';

export interface CodexFixture {
  root: string;
  /** HOME */
  home: string;
  /** CODEX_HOME */
  codexHome: string;
  /** TMPDIR (the daemon, were it on, would put `codex-daemon-<uid>/` here). */
  tmp: string;
  /**
   * Everything a codex process needs: HOME, CODEX_HOME, TMPDIR, XDG_*, FAKE_API_KEY, the proxies
   * (closed port) and PATH with node_modules/.bin first.
   */
  env: Record<string, string>;
  /** Marks a folder as trusted (`[projects."<cwd>"] trust_level = "trusted"`), keeping what Codex wrote. */
  trust(cwd: string): void;
  /** `$CODEX_HOME/sessions/YYYY/MM/DD/rollout-<ts>-<threadId>.jsonl`, if it exists. */
  rolloutFor(threadId: string): string | undefined;
  /** `$CODEX_HOME/thread-writer-locks/<threadId>.lock` (exclusive flock while the thread is loaded). */
  lockPath(threadId: string): string;
  /** Turns Codex's background daemon on in this home (its default): drops `daemon_auto_start = false`. */
  enableDaemon(): void;
  /**
   * Ends this home's daemon processes (by pid, found by this home in their environment) and removes
   * the sockets the daemon keeps in /tmp/codex-daemon-<uid>/, found through this home's own links.
   */
  endDaemon(): Promise<void>;
  cleanup(): void;
}

export interface CodexFixtureOptions {
  serverUrl: string;
  closedPort: number;
  trustedCwds?: string[];
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

const tomlString = (s: string): string => JSON.stringify(s);

function baseConfig(serverUrl: string): string {
  return [
    'model = "fake-model"',
    'model_provider = "fake"',
    'approval_policy = "on-request"',
    'sandbox_mode = "workspace-write"',
    'check_for_update_on_startup = false',
    '',
    '[features]',
    'daemon_auto_start = false',
    // Codex offers its question tool (request_user_input) outside Plan mode only with this; a
    // person who wants their seats to ask turns it on, and the question tests need it.
    'default_mode_request_user_input = true',
    '',
    '[model_providers.fake]',
    'name = "Fake local"',
    `base_url = ${tomlString(`${serverUrl}/v1`)}`,
    'env_key = "FAKE_API_KEY"',
    'wire_api = "responses"',
    '',
    '[analytics]',
    'enabled = false',
    '',
  ].join('\n');
}

const projectTable = (cwd: string): string => `[projects.${tomlString(cwd)}]\ntrust_level = "trusted"\n`;

export function makeCodexFixture(opts: CodexFixtureOptions): CodexFixture {
  const ownRoot = opts.root === undefined;
  const root = realOrSame(opts.root ?? mkdtempSync(join(tmpdir(), 'rd-codex-')));
  const home = join(root, 'home');
  const codexHome = join(root, 'codex-home');
  const tmp = join(root, 'tmp');
  for (const d of [home, codexHome, tmp]) mkdirSync(d, { recursive: true });

  const configPath = join(codexHome, 'config.toml');
  const trusted = new Set<string>();
  const trustOne = (cwd: string): string => {
    let added = '';
    for (const p of new Set([cwd, realOrSame(cwd)])) {
      if (trusted.has(p)) continue;
      trusted.add(p);
      added += `\n${projectTable(p)}`;
    }
    return added;
  };
  let initial = baseConfig(opts.serverUrl);
  for (const cwd of opts.trustedCwds ?? []) initial += trustOne(cwd);
  writeFileSync(configPath, initial);

  const env: Record<string, string> = {
    HOME: home,
    CODEX_HOME: codexHome,
    TMPDIR: tmp,
    XDG_CONFIG_HOME: join(home, '.config'),
    XDG_CACHE_HOME: join(home, '.cache'),
    XDG_DATA_HOME: join(home, '.local', 'share'),
    XDG_STATE_HOME: join(home, '.local', 'state'),
    XDG_RUNTIME_DIR: join(tmp, 'xdg-runtime'),
    FAKE_API_KEY: FAKE_CODEX_API_KEY,
    ...sandboxNetworkEnv(opts.closedPort),
    PATH: [PROJECT_BIN_DIR, process.env.PATH ?? '/usr/local/bin:/usr/bin:/bin'].join(delimiter),
  };
  mkdirSync(env.XDG_RUNTIME_DIR!, { recursive: true, mode: 0o700 });

  return {
    root,
    home,
    codexHome,
    tmp,
    env,
    trust(cwd: string) {
      // Codex rewrites config.toml itself (it appends [tui] tables); append to what is there now.
      const current = existsSync(configPath) ? readFileSync(configPath, 'utf8') : baseConfig(opts.serverUrl);
      const added = trustOne(cwd);
      if (added) writeFileSync(configPath, `${current.replace(/\n*$/, '\n')}${added}`);
    },
    rolloutFor(threadId: string) {
      const sessions = join(codexHome, 'sessions');
      const list = (p: string): string[] => {
        try {
          return readdirSync(p).sort();
        } catch {
          return [];
        }
      };
      for (const y of list(sessions))
        for (const m of list(join(sessions, y)))
          for (const d of list(join(sessions, y, m))) {
            const hit = list(join(sessions, y, m, d)).find(
              (f) => f.startsWith('rollout-') && f.endsWith(`-${threadId}.jsonl`),
            );
            if (hit) return join(sessions, y, m, d, hit);
          }
      return undefined;
    },
    lockPath(threadId: string) {
      return join(codexHome, 'thread-writer-locks', `${threadId}.lock`);
    },
    enableDaemon() {
      writeFileSync(configPath, readFileSync(configPath, 'utf8').replace(/^daemon_auto_start = false\n/m, ''));
    },
    async endDaemon() {
      // The daemon's sockets live outside the home (in /tmp, whatever TMPDIR says); the home links to them.
      const links = [
        join(codexHome, 'app-server-control', 'app-server-control.sock'),
        join(codexHome, 'app-server-daemon', 'daemon-updater.sock'),
      ];
      const targets = links.flatMap((l) => {
        try {
          const t = resolve(dirname(l), readlinkSync(l));
          return [t, `${t}.lock`];
        } catch {
          return [];
        }
      });
      await killPids(pidsWithEnv('CODEX_HOME', codexHome));
      for (const t of targets) rmSync(t, { force: true });
    },
    cleanup() {
      if (ownRoot) rmSync(root, { recursive: true, force: true });
      else for (const d of [home, codexHome, tmp]) rmSync(d, { recursive: true, force: true });
    },
  };
}
