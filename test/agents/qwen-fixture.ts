/**
 * An isolated home for the real Qwen Code CLI (@qwen-code/qwen-code 0.15.10;
 * ../shared/docs/agent-clis-more.md §3): its own HOME, QWEN_HOME, TMPDIR and XDG dirs under one
 * temp folder, the OpenAI-compatible provider at a fake model server on 127.0.0.1, and every proxy
 * variable sending anything else to a closed local port.
 *
 * Qwen ignores NO_PROXY, so with those variables alone it cannot reach the fake server. The
 * fixture does not write a proxy into Qwen's settings itself: the env carries RIGDESK_QWEN_PROXY
 * (once `startProxy` or `useProxy` gave it the tests' loopback-only proxy), and Rigdesk's launch writes it into
 * the seat's settings.json. A run outside Rigdesk calls `writeProxySetting`.
 */
import { mkdirSync, mkdtempSync, readFileSync, realpathSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { delimiter, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { sandboxNetworkEnv } from './fake-model-server';
import { startLocalProxy, type LocalProxy } from './local-proxy';
import { qwenTranscriptFile } from '../../src/main/engine/runtimes/qwen';
import { QWEN_PROXY_VAR } from '../../src/main/engine/runtimes/qwen-settings';

export const QWEN_BIN: string = fileURLToPath(new URL('../../node_modules/.bin/qwen', import.meta.url));
const PROJECT_BIN_DIR = fileURLToPath(new URL('../../node_modules/.bin', import.meta.url));

/** The version the tests were written against. */
export const QWEN_VERSION = '0.15.10';

export interface QwenFixture {
  root: string;
  home: string;
  /** QWEN_HOME: settings.json, projects/<slug>/chats/<uuid>.jsonl, debug/ */
  qwenHome: string;
  tmp: string;
  env: Record<string, string>;
  /** Hands the seat (through its env) the proxy Qwen must use. */
  useProxy(url: string): void;
  /**
   * Starts the tests' loopback-only proxy and hands it to the seat (useProxy); a journey with a
   * Qwen seat awaits this before `up`, and closes the proxy (or leaves it to cleanup) at the end.
   */
  startProxy(): Promise<LocalProxy>;
  /** Writes the proxy into settings.json directly, for a Qwen run without Rigdesk. */
  writeProxySetting(url: string): void;
  settings(): Record<string, unknown>;
  transcriptFor(cwd: string, id: string): string;
  cleanup(): void;
}

export interface QwenFixtureOptions {
  serverUrl: string;
  closedPort: number;
  trustedCwds?: string[];
  /** Use this folder instead of a fresh temp folder (it is not deleted by cleanup). */
  root?: string;
}

const json = (v: unknown): string => `${JSON.stringify(v, null, 2)}\n`;

export function makeQwenFixture(opts: QwenFixtureOptions): QwenFixture {
  const ownRoot = opts.root === undefined;
  if (opts.root) mkdirSync(opts.root, { recursive: true });
  const root = realpathSync(opts.root ?? mkdtempSync(join(tmpdir(), 'rd-qwen-')));
  const home = join(root, 'home');
  const qwenHome = join(root, 'qwen-home');
  const tmp = join(root, 'tmp');
  for (const d of [home, qwenHome, tmp]) mkdirSync(d, { recursive: true });
  const settingsPath = join(qwenHome, 'settings.json');
  // No auth dialog with selectedType=openai; no trust dialog with folderTrust off; nothing phones home.
  writeFileSync(
    settingsPath,
    json({
      security: { auth: { selectedType: 'openai' }, folderTrust: { enabled: false } },
      general: { enableAutoUpdate: false },
      privacy: { usageStatisticsEnabled: false },
      telemetry: { enabled: false },
      model: { name: 'fake-model' },
    }),
  );
  const env: Record<string, string> = {
    ...sandboxNetworkEnv(opts.closedPort),
    HOME: home,
    QWEN_HOME: qwenHome,
    TMPDIR: tmp,
    XDG_CONFIG_HOME: join(home, '.config'),
    XDG_DATA_HOME: join(home, '.local', 'share'),
    XDG_CACHE_HOME: join(home, '.cache'),
    XDG_STATE_HOME: join(home, '.local', 'state'),
    OPENAI_API_KEY: 'sk-fake',
    OPENAI_BASE_URL: `${opts.serverUrl}/v1`,
    OPENAI_MODEL: 'fake-model',
    TERM: 'xterm-256color',
    PATH: `${PROJECT_BIN_DIR}${delimiter}${process.env.PATH ?? ''}`,
  };
  let proxy: LocalProxy | undefined;
  const settings = () => JSON.parse(readFileSync(settingsPath, 'utf8')) as Record<string, unknown>;
  return {
    root,
    home,
    qwenHome,
    tmp,
    env,
    useProxy(url) {
      env[QWEN_PROXY_VAR] = url;
    },
    async startProxy() {
      proxy ??= await startLocalProxy();
      env[QWEN_PROXY_VAR] = proxy.url;
      return proxy;
    },
    writeProxySetting(url) {
      writeFileSync(settingsPath, json({ ...settings(), proxy: url }));
    },
    settings,
    transcriptFor: (cwd, id) => qwenTranscriptFile(qwenHome, realpathSync(cwd), id),
    cleanup: () => {
      void proxy?.close();
      if (ownRoot) rmSync(root, { recursive: true, force: true });
      else for (const d of [home, qwenHome, tmp]) rmSync(d, { recursive: true, force: true });
    },
  };
}
