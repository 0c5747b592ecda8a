/**
 * An isolated home for the real Gemini CLI (@google/gemini-cli 0.61.0; docs/agent-clis-more.md §2):
 * its own HOME, GEMINI_CLI_HOME, TMPDIR and XDG dirs under one temp folder, pointed at a fake model
 * server on 127.0.0.1 (`GOOGLE_GEMINI_BASE_URL`, Gemini API only), with every proxy variable
 * sending anything else to a closed local port.
 *
 * The settings skip the auth dialog (`security.auth.selectedType=gemini-api-key`), folder trust
 * (`GEMINI_CLI_TRUST_WORKSPACE=true`), auto-update and telemetry. Session retention is left at the
 * CLI's DEFAULT (on) unless asked: a seat's launch is what turns it off (the engine writes it), and
 * a test that runs the CLI by hand shows what the default does.
 */
import {
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  realpathSync,
  rmSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { delimiter, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { sandboxNetworkEnv } from './fake-model-server';

export const GEMINI_BIN: string = fileURLToPath(new URL('../../node_modules/.bin/gemini', import.meta.url));
const PROJECT_BIN_DIR = fileURLToPath(new URL('../../node_modules/.bin', import.meta.url));

/** The version the tests were written against. */
export const GEMINI_VERSION = '0.61.0';

export interface GeminiFixture {
  root: string;
  /** HOME and GEMINI_CLI_HOME: the CLI's files are under `<home>/.gemini`. */
  home: string;
  tmp: string;
  env: Record<string, string>;
  /** `<home>/.gemini/settings.json` */
  settingsPath: string;
  /** Every transcript file of a conversation (`tmp/<project>/chats/session-<minute>-<id8>.jsonl`), any project. */
  sessionFiles(id: string): string[];
  cleanup(): void;
}

export interface GeminiFixtureOptions {
  serverUrl: string;
  closedPort: number;
  trustedCwds?: string[];
  /** Write `general.sessionRetention.enabled` (default: leave it out, i.e. the CLI's default, on). */
  sessionRetention?: boolean;
  /** Use this folder instead of a fresh temp folder (it is not deleted by cleanup). */
  root?: string;
}

export function geminiSettings(sessionRetention?: boolean): Record<string, unknown> {
  return {
    security: { auth: { selectedType: 'gemini-api-key' }, folderTrust: { enabled: false } },
    general: {
      enableAutoUpdate: false,
      enableAutoUpdateNotification: false,
      ...(sessionRetention === undefined ? {} : { sessionRetention: { enabled: sessionRetention } }),
    },
    privacy: { usageStatisticsEnabled: false },
    telemetry: { enabled: false },
    ui: { theme: 'Default' },
    model: { name: 'gemini-2.5-flash' },
  };
}

export function makeGeminiFixture(opts: GeminiFixtureOptions): GeminiFixture {
  const ownRoot = opts.root === undefined;
  const root = realpathSync(mkdirP(opts.root ?? mkdtempSync(join(tmpdir(), 'rd-gemini-'))));
  const home = join(root, 'home');
  const tmp = join(root, 'tmp');
  const dotGemini = join(home, '.gemini');
  for (const d of [home, tmp, dotGemini]) mkdirSync(d, { recursive: true });
  const settingsPath = join(dotGemini, 'settings.json');
  writeFileSync(settingsPath, `${JSON.stringify(geminiSettings(opts.sessionRetention), null, 2)}\n`);
  const env: Record<string, string> = {
    ...sandboxNetworkEnv(opts.closedPort),
    HOME: home,
    GEMINI_CLI_HOME: home,
    TMPDIR: tmp,
    XDG_CONFIG_HOME: join(home, '.config'),
    XDG_DATA_HOME: join(home, '.local', 'share'),
    XDG_CACHE_HOME: join(home, '.cache'),
    XDG_STATE_HOME: join(home, '.local', 'state'),
    GEMINI_API_KEY: 'fake-key',
    GOOGLE_GEMINI_BASE_URL: opts.serverUrl,
    GEMINI_CLI_TRUST_WORKSPACE: 'true',
    // A system settings file of this machine must not change what the tests see.
    GEMINI_CLI_SYSTEM_SETTINGS_PATH: join(root, 'system-settings.json'),
    TERM: 'xterm-256color',
    PATH: `${PROJECT_BIN_DIR}${delimiter}${process.env.PATH ?? ''}`,
  };
  return {
    root,
    home,
    tmp,
    env,
    settingsPath,
    sessionFiles(id: string) {
      const base = join(dotGemini, 'tmp');
      if (!existsSync(base)) return [];
      const out: string[] = [];
      for (const project of readdirSync(base)) {
        const chats = join(base, project, 'chats');
        if (!existsSync(chats)) continue;
        for (const f of readdirSync(chats)) if (f.endsWith(`-${id.slice(0, 8)}.jsonl`)) out.push(join(chats, f));
      }
      return out.sort();
    },
    cleanup: () => {
      if (ownRoot) rmSync(root, { recursive: true, force: true });
    },
  };
}

function mkdirP(p: string): string {
  mkdirSync(p, { recursive: true });
  return p;
}

/** The first line of a transcript file (its header, when Gemini wrote one). */
export function firstLine(path: string): string {
  return readFileSync(path, 'utf8').split('\n', 1)[0]!;
}
