import { localSettingsIO, readJsonObject, writeJsonAtomic, type SettingsIO } from './json-settings';
import { join } from 'node:path';
import { fail, type Result } from '../../../shared/errors';

/**
 * What Rigdesk writes into a Qwen seat's config before launching it, and when it refuses instead.
 *
 * Qwen Code 0.15.10 ignores NO_PROXY: it hands `--proxy || settings.proxy || HTTPS_PROXY ||
 * https_proxy || HTTP_PROXY || http_proxy` to one undici ProxyAgent for every model call
 * (pinned by test/agents/qwen-real.test.ts). A seat whose environment says "proxy, but not for
 * these hosts" would therefore send its model calls (API key included) to the proxy, or fail
 * against a proxy that is closed on purpose. Rigdesk does not rely on NO_PROXY for Qwen:
 *
 * - The seat names the proxy Qwen must use in `RIGDESK_QWEN_PROXY` (a proxy that reaches the
 *   model endpoint: the tests use one on 127.0.0.1 that reaches only 127.0.0.1). Rigdesk writes
 *   it as the top-level `"proxy"` of `$QWEN_HOME/settings.json`, merged into what is there (Qwen
 *   adds its own `$version` and keeps a `.orig`), and only where the seat's own env sets QWEN_HOME:
 *   a person's own `~/.qwen` is never written.
 * - A seat whose env sets a proxy and NO_PROXY, without a proxy setting Qwen would honour, is
 *   refused (RUNTIME_CONFIG_UNSAFE) with what to set; so is RIGDESK_QWEN_PROXY without an isolated
 *   QWEN_HOME to write it into, and a settings.json Rigdesk cannot read.
 */
export const QWEN_PROXY_VAR = 'RIGDESK_QWEN_PROXY';
const PROXY_VARS = ['HTTPS_PROXY', 'https_proxy', 'HTTP_PROXY', 'http_proxy'] as const;
const NO_PROXY_VARS = ['NO_PROXY', 'no_proxy'] as const;

export interface QwenSeatInput {
  /** The seat's own env from the rig spec (what Rigdesk may write for). */
  seatEnv: Record<string, string>;
  /** What the agent will see: the engine's env (identity scrubbed) under the seat's. */
  effectiveEnv: NodeJS.ProcessEnv;
  /** The person's home, for `~/.qwen` when the seat does not isolate one. */
  userHome?: string;
  /** Decide only (doctor): report what launch would write or refuse, and write nothing. */
  dryRun?: boolean;
  /** Where the files are: this machine's by default, or the seat's host's. */
  io?: SettingsIO;
}

export interface QwenSeatPlan {
  /** The settings file written, when Rigdesk wrote one. */
  wrote?: string;
  proxy?: string;
}

function readSettings(path: string, io: SettingsIO): Result<{ settings: Record<string, unknown> | undefined }> {
  const r = readJsonObject(path, io);
  if (r.ok) return { ok: true, settings: r.value };
  if (r.unreadable)
    return fail('RUNTIME_CONFIG_UNSAFE', `cannot read Qwen settings ${path}: ${r.why}`, { evidence: { path } });
  return fail('RUNTIME_CONFIG_UNSAFE', `Qwen settings ${path} is not a JSON object; Rigdesk will not rewrite it`, {
    hint: "Fix or remove that file (it is the seat's own, under its QWEN_HOME), then launch again.",
    evidence: { path },
  });
}

/** Decides, and where the seat isolates Qwen's config, writes the proxy setting. */
export function prepareQwenSeat(input: QwenSeatInput): Result<QwenSeatPlan> {
  const env = input.effectiveEnv;
  const io = input.io ?? localSettingsIO;
  const want = env[QWEN_PROXY_VAR]?.trim() || undefined;
  const isolated = input.seatEnv.QWEN_HOME?.trim() || undefined;
  const proxied = PROXY_VARS.find((v) => env[v]?.trim());
  const noProxy = NO_PROXY_VARS.find((v) => env[v]?.trim());

  if (!isolated) {
    if (want) {
      return fail(
        'RUNTIME_CONFIG_UNSAFE',
        `${QWEN_PROXY_VAR} is set, but the seat does not isolate Qwen's config (no QWEN_HOME in its env), and Rigdesk never writes a person's own ~/.qwen`,
        {
          hint: 'Give the seat its own QWEN_HOME in the rig spec, or set "proxy" in your own Qwen settings and drop RIGDESK_QWEN_PROXY.',
          evidence: { variable: QWEN_PROXY_VAR },
        },
      );
    }
    if (!proxied || !noProxy) return { ok: true };
    const own = input.userHome
      ? join(env.QWEN_HOME?.trim() || join(input.userHome, '.qwen'), 'settings.json')
      : undefined;
    const read = own ? readSettings(own, io) : undefined;
    if (read?.ok && typeof read.settings?.proxy === 'string' && read.settings.proxy)
      return { ok: true, proxy: read.settings.proxy };
    return noProxyRefusal(proxied, noProxy, own);
  }

  const path = join(isolated, 'settings.json');
  const read = readSettings(path, io);
  if (!read.ok) return read;
  const settings = read.settings ?? {};
  if (!want) {
    if (proxied && noProxy && !(typeof settings.proxy === 'string' && settings.proxy))
      return noProxyRefusal(proxied, noProxy, path);
    return { ok: true, ...(typeof settings.proxy === 'string' ? { proxy: settings.proxy } : {}) };
  }
  if (settings.proxy === want || input.dryRun) return { ok: true, proxy: want };
  const next = { ...settings, proxy: want };
  try {
    writeJsonAtomic(path, next, 0o600, io);
  } catch (e) {
    return fail('RUNTIME_CONFIG_UNSAFE', `cannot write Qwen's proxy setting into ${path}: ${(e as Error).message}`, {
      evidence: { path },
    });
  }
  return { ok: true, wrote: path, proxy: want };
}

function noProxyRefusal(proxied: string, noProxy: string, settingsPath: string | undefined) {
  return fail(
    'RUNTIME_CONFIG_UNSAFE',
    `the seat sets ${proxied} and ${noProxy}, but Qwen Code ignores ${noProxy} and would send every model call through ${proxied}`,
    {
      hint: `Set ${QWEN_PROXY_VAR} in the seat's env (with its own QWEN_HOME) to a proxy that reaches the model endpoint, or set "proxy" in the seat's Qwen settings.`,
      evidence: {
        proxyVariable: proxied,
        noProxyVariable: noProxy,
        ...(settingsPath ? { settings: settingsPath } : {}),
      },
    },
  );
}
