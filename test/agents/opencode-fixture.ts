/**
 * An isolated home for the real OpenCode CLI (opencode-ai 1.18.33; ../shared/docs/agent-clis-more.md
 * §1): its own HOME, TMPDIR and XDG dirs under one temp folder, a `fake` OpenAI-compatible provider
 * at a fake model server on 127.0.0.1 written to `$XDG_CONFIG_HOME/opencode/opencode.json`, every
 * proxy variable sending anything else to a closed local port, and OpenCode's own network switches
 * (autoupdate, models.dev fetch, LSP download, share) off.
 *
 * `permission.bash: "ask"`: without it OpenCode runs every shell command unasked, and the journeys
 * need a `RUN:` turn to stop at a permission prompt.
 */
import Database from 'better-sqlite3';
import { existsSync, mkdirSync, mkdtempSync, realpathSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { delimiter, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { sandboxNetworkEnv } from './fake-model-server';

export const OPENCODE_BIN: string = fileURLToPath(new URL('../../node_modules/.bin/opencode', import.meta.url));
const PROJECT_BIN_DIR = fileURLToPath(new URL('../../node_modules/.bin', import.meta.url));

/** The version the tests were written against. */
export const OPENCODE_VERSION = '1.18.33';

export interface OpencodeFixture {
  root: string;
  home: string;
  /** TMPDIR (OpenCode's Bun binary extracts ~19 MB of .so files here on every start). */
  tmp: string;
  /** XDG_DATA_HOME: `opencode/opencode.db` (the sessions) lives under it; the adapter's home. */
  dataHome: string;
  /** `$XDG_CONFIG_HOME/opencode/opencode.json` */
  configFile: string;
  /** `$XDG_DATA_HOME/opencode/opencode.db` */
  dbPath: string;
  env: Record<string, string>;
  /** Every text part of a session in opencode.db, in order (read-only; '' when absent). */
  sessionText(id: string): string;
  /** Top-level sessions of a folder, oldest first. */
  sessionsIn(dir: string): { id: string; timeCreated: number }[];
  cleanup(): void;
}

export interface OpencodeFixtureOptions {
  serverUrl: string;
  closedPort: number;
  /** Unused: OpenCode shows no trust dialog (kept for the journeys' common call). */
  trustedCwds?: string[];
  /** Use this folder instead of a fresh temp folder (it is not deleted by cleanup). */
  root?: string;
  /** `ask` (default) stops a shell call at a permission prompt; `allow` runs it unasked. */
  bash?: 'ask' | 'allow';
}

/** The config the CLI reads: a provider at the fake server, and nothing that phones out. */
export function opencodeConfig(serverUrl: string, bash: 'ask' | 'allow' = 'ask'): Record<string, unknown> {
  return {
    autoupdate: false,
    share: 'disabled',
    model: 'fake/fake-model',
    small_model: 'fake/fake-model',
    provider: {
      fake: {
        npm: '@ai-sdk/openai-compatible',
        name: 'Fake',
        options: { baseURL: `${serverUrl}/v1`, apiKey: 'sk-fake' },
        models: { 'fake-model': { name: 'Fake Model', tool_call: true } },
      },
    },
    permission: { bash },
  };
}

export function makeOpencodeFixture(opts: OpencodeFixtureOptions): OpencodeFixture {
  const ownRoot = opts.root === undefined;
  const root = realpathSync(mkdirAnd(opts.root) ?? mkdtempSync(join(tmpdir(), 'rd-opencode-')));
  const home = join(root, 'home');
  const tmp = join(root, 'tmp');
  const configHome = join(home, '.config');
  const dataHome = join(home, '.local', 'share');
  for (const d of [home, tmp, join(configHome, 'opencode'), dataHome]) mkdirSync(d, { recursive: true });
  const configFile = join(configHome, 'opencode', 'opencode.json');
  writeFileSync(configFile, `${JSON.stringify(opencodeConfig(opts.serverUrl, opts.bash), null, 2)}\n`);
  const env: Record<string, string> = {
    ...sandboxNetworkEnv(opts.closedPort),
    HOME: home,
    TMPDIR: tmp,
    XDG_CONFIG_HOME: configHome,
    XDG_DATA_HOME: dataHome,
    XDG_CACHE_HOME: join(home, '.cache'),
    XDG_STATE_HOME: join(home, '.local', 'state'),
    OPENCODE_DISABLE_AUTOUPDATE: '1',
    OPENCODE_DISABLE_MODELS_FETCH: '1',
    OPENCODE_DISABLE_LSP_DOWNLOAD: '1',
    OPENCODE_DISABLE_SHARE: '1',
    TERM: 'xterm-256color',
    PATH: `${PROJECT_BIN_DIR}${delimiter}${process.env.PATH ?? ''}`,
  };
  return {
    root,
    home,
    tmp,
    dataHome,
    configFile,
    dbPath: join(dataHome, 'opencode', 'opencode.db'),
    env,
    sessionText: (id) =>
      withDb(
        join(dataHome, 'opencode', 'opencode.db'),
        (db) =>
          (
            db.prepare('SELECT data FROM part WHERE session_id = ? ORDER BY time_created, id').all(id) as {
              data: string;
            }[]
          )
            .map((r) => (JSON.parse(r.data) as { text?: string }).text ?? '')
            .join('\n'),
        '',
      ),
    sessionsIn: (dir) =>
      withDb(
        join(dataHome, 'opencode', 'opencode.db'),
        (db) =>
          db
            .prepare(
              'SELECT id, time_created AS timeCreated FROM session WHERE directory = ? AND parent_id IS NULL ORDER BY time_created',
            )
            .all(dir) as { id: string; timeCreated: number }[],
        [],
      ),
    cleanup: () => {
      if (ownRoot) rmSync(root, { recursive: true, force: true });
      else for (const d of [home, tmp]) rmSync(d, { recursive: true, force: true });
    },
  };
}

function withDb<T>(file: string, read: (db: Database.Database) => T, absent: T): T {
  if (!existsSync(file)) return absent;
  const db = new Database(file, { readonly: true, fileMustExist: true, timeout: 2000 });
  try {
    return read(db);
  } finally {
    db.close();
  }
}

function mkdirAnd(p: string | undefined): string | undefined {
  if (p !== undefined) mkdirSync(p, { recursive: true });
  return p;
}
