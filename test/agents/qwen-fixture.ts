/**
 * An isolated home for the real Qwen Code CLI (@qwen-code/qwen-code 0.15.10; ../shared/docs/agent-clis-more.md): its own
 * HOME, TMPDIR and XDG dirs under one temp folder, pointed at a fake model server on 127.0.0.1,
 * with every proxy variable sending anything else to a closed local port.
 *
 * SCAFFOLD: to be completed by the Qwen Code runtime work (config files, trusted folders, paths).
 */
import { mkdirSync, mkdtempSync, realpathSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { delimiter, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { sandboxNetworkEnv } from './fake-model-server';

export const QWEN_BIN: string = fileURLToPath(new URL('../../node_modules/.bin/qwen', import.meta.url));
const PROJECT_BIN_DIR = fileURLToPath(new URL('../../node_modules/.bin', import.meta.url));

/** The version the tests were written against. */
export const QWEN_VERSION = '0.15.10';

export interface QwenFixture {
  root: string;
  home: string;
  tmp: string;
  env: Record<string, string>;
  cleanup(): void;
}

export interface QwenFixtureOptions {
  serverUrl: string;
  closedPort: number;
  trustedCwds?: string[];
  /** Use this folder instead of a fresh temp folder (it is not deleted by cleanup). */
  root?: string;
}

export function makeQwenFixture(opts: QwenFixtureOptions): QwenFixture {
  const ownRoot = opts.root === undefined;
  const root = realpathSync(opts.root ?? mkdtempSync(join(tmpdir(), 'rd-qwen-')));
  const home = join(root, 'home');
  const tmp = join(root, 'tmp');
  for (const d of [home, tmp]) mkdirSync(d, { recursive: true });
  const env: Record<string, string> = {
    ...sandboxNetworkEnv(opts.closedPort),
    HOME: home,
    TMPDIR: tmp,
    XDG_CONFIG_HOME: join(home, '.config'),
    XDG_DATA_HOME: join(home, '.local', 'share'),
    XDG_CACHE_HOME: join(home, '.cache'),
    XDG_STATE_HOME: join(home, '.local', 'state'),
    PATH: `${PROJECT_BIN_DIR}${delimiter}${process.env.PATH ?? ''}`,
  };
  return {
    root,
    home,
    tmp,
    env,
    cleanup: () => {
      if (ownRoot) rmSync(root, { recursive: true, force: true });
    },
  };
}
