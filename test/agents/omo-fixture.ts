/**
 * An isolated home for omo (oh-my-opencode 4.19.4 on opencode-ai 1.18.33): OpenCode's own fixture
 * (its HOME, TMPDIR and XDG dirs, the `fake` provider, the proxies at a closed port, OpenCode's
 * network switches off), with the plugin NOT installed: for a seat Rigdesk installs it (the journey
 * checks that), and a test running omo by hand installs it the way Rigdesk does
 * (`prepareOmoSeat`). `handEnv` is a person's shell for omo: its telemetry off as well.
 */
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { makeOpencodeFixture, type OpencodeFixture, type OpencodeFixtureOptions } from './opencode-fixture';

export const OMO_BIN: string = fileURLToPath(new URL('../../node_modules/.bin/omo', import.meta.url));

/** The version the tests were written against. */
export const OMO_VERSION = '4.19.4';

/** omo's plugin telemetry (PostHog) off, either switch; Rigdesk sets both for a seat. */
export const OMO_TELEMETRY_OFF = { OMO_SEND_ANONYMOUS_TELEMETRY: '0', OMO_DISABLE_POSTHOG: '1' } as const;

export interface OmoFixture extends OpencodeFixture {
  /** `$XDG_CONFIG_HOME/opencode`: where the plugin and its dependency records go. */
  configDir: string;
  /** OpenCode's log (the plugin's start and any dependency install are logged there). */
  logFile: string;
  /** A person's shell in `dir`: the fixture's env, telemetry off, PWD set (OpenCode reads it). */
  handEnv(dir: string): Record<string, string>;
}

export function makeOmoFixture(opts: OpencodeFixtureOptions): OmoFixture {
  const fx = makeOpencodeFixture(opts);
  return {
    ...fx,
    configDir: join(fx.env.XDG_CONFIG_HOME!, 'opencode'),
    logFile: join(fx.dataHome, 'opencode', 'log', 'opencode.log'),
    handEnv: (dir) => ({ ...fx.env, ...OMO_TELEMETRY_OFF, PWD: dir }),
  };
}

/** What omo prints when the OpenCode server it starts is not up within its fixed 5 s (no setting). */
export const OMO_SERVER_TIMEOUT = 'Timeout waiting for server to start';
