import { localSettingsIO, readJsonObject, writeJsonAtomic, type SettingsIO } from './json-settings';
import { dirname, join } from 'node:path';
import { fail, type Result } from '../../../shared/errors';

/**
 * Gemini CLI's session cleanup deletes transcripts Rigdesk must keep (docs/agent-clis-more.md §2.5):
 * an interactive `--resume` in a later clock-minute than the conversation began writes a stub file
 * `session-<new minute>-<id8>.jsonl` holding only a header, and with `general.sessionRetention.enabled`
 * on (the CLI's default) the next Gemini start in that folder treats the stub as not resumable and
 * deletes every file of that id, the real transcript included. So a Gemini seat runs only with
 * cleanup off: Rigdesk writes that into the seat's OWN settings (its GEMINI_CLI_HOME), never a
 * person's, and refuses the launch when the settings Gemini will merge would still turn it on.
 *
 * Gemini 0.61.0 merges, later winning: system defaults, user (`$GEMINI_CLI_HOME/.gemini/settings.json`,
 * else `~/.gemini/…`), workspace (`<cwd>/.gemini/settings.json`), system
 * (`$GEMINI_CLI_SYSTEM_SETTINGS_PATH`, else `/etc/gemini-cli/settings.json`). Its files may carry
 * comments; one Rigdesk cannot parse is not rewritten, and counts as unknown (refused).
 */
export const GEMINI_SETTINGS = {
  dir: '.gemini',
  file: 'settings.json',
  systemEnv: 'GEMINI_CLI_SYSTEM_SETTINGS_PATH',
  systemDefault: '/etc/gemini-cli/settings.json',
  systemDefaultsEnv: 'GEMINI_CLI_SYSTEM_DEFAULTS_PATH',
  homeEnv: 'GEMINI_CLI_HOME',
} as const;

export type SettingsScope = 'system' | 'workspace' | 'user' | 'system defaults';

export interface RetentionVerdict {
  /** Whether Gemini would run its session cleanup. */
  enabled: boolean;
  /** Where the deciding value comes from; `default` when no file sets it. */
  scope: SettingsScope | 'default';
  path?: string;
}

export function userSettingsPath(home: string): string {
  return join(home, GEMINI_SETTINGS.dir, GEMINI_SETTINGS.file);
}

/** The settings files Gemini merges for a cwd, strongest first. `home` is GEMINI_CLI_HOME or HOME. */
export function settingsFiles(
  home: string,
  cwd: string,
  env: Record<string, string | undefined>,
): { scope: SettingsScope; path: string }[] {
  const system = env[GEMINI_SETTINGS.systemEnv] || GEMINI_SETTINGS.systemDefault;
  const defaults = env[GEMINI_SETTINGS.systemDefaultsEnv] || join(dirname(system), 'system-defaults.json');
  return [
    { scope: 'system', path: system },
    { scope: 'workspace', path: join(cwd, GEMINI_SETTINGS.dir, GEMINI_SETTINGS.file) },
    { scope: 'user', path: userSettingsPath(home) },
    { scope: 'system defaults', path: defaults },
  ];
}

class UnreadableSettings extends Error {
  constructor(
    readonly path: string,
    why: string,
  ) {
    super(`${path}: ${why}`);
  }
}

function readSettings(path: string, io: SettingsIO): Record<string, unknown> | undefined {
  const r = readJsonObject(path, io);
  if (!r.ok) throw new UnreadableSettings(path, r.why);
  return r.value;
}

function retentionIn(settings: Record<string, unknown> | undefined): boolean | undefined {
  const general = settings?.general as Record<string, unknown> | undefined;
  const retention = general?.sessionRetention as Record<string, unknown> | undefined;
  return typeof retention?.enabled === 'boolean' ? retention.enabled : undefined;
}

/** What Gemini would decide for session cleanup, from the files it merges. Throws when one is unreadable. */
export function effectiveRetention(
  home: string,
  cwd: string,
  env: Record<string, string | undefined>,
  io: SettingsIO = localSettingsIO,
): RetentionVerdict {
  // The workspace file counts only where it is not the user file itself (cwd = home).
  const files = settingsFiles(home, cwd, env).filter(
    (f, _, all) => f.scope !== 'workspace' || f.path !== all.find((x) => x.scope === 'user')!.path,
  );
  for (const f of files) {
    const v = retentionIn(readSettings(f.path, io));
    if (v !== undefined) return { enabled: v, scope: f.scope, path: f.path };
  }
  return { enabled: true, scope: 'default' };
}

/** Sets `general.sessionRetention.enabled = false` in a seat's own settings file, keeping everything else. */
export function writeRetentionOff(home: string, io: SettingsIO = localSettingsIO): void {
  const path = userSettingsPath(home);
  const settings = readSettings(path, io) ?? {};
  const general = (typeof settings.general === 'object' && settings.general !== null ? settings.general : {}) as Record<
    string,
    unknown
  >;
  const retention = (
    typeof general.sessionRetention === 'object' && general.sessionRetention !== null ? general.sessionRetention : {}
  ) as Record<string, unknown>;
  if (retention.enabled === false) return;
  settings.general = { ...general, sessionRetention: { ...retention, enabled: false } };
  writeJsonAtomic(path, settings, 0o644, io);
}

export interface GeminiSeatInput {
  /** The seat's own GEMINI_CLI_HOME from its spec env: the only settings Rigdesk may write. */
  isolatedHome?: string;
  /** The home Gemini will use (isolatedHome, else the seat's HOME). */
  home: string;
  cwd: string;
  /** The environment the seat runs with (system settings paths come from it). */
  env: Record<string, string | undefined>;
  /** Where the files are: this machine's by default, or the seat's host's. */
  io?: SettingsIO;
}

/**
 * Makes a Gemini seat safe to launch, or says why it is not: writes cleanup off into the seat's own
 * settings when it has them, then checks what Gemini will actually merge.
 */
export function prepareGeminiSeat(
  input: GeminiSeatInput,
  opts: { write: boolean } = { write: true },
): Result<{ retention: RetentionVerdict; wrote: boolean }> {
  let wrote = false;
  const io = input.io ?? localSettingsIO;
  try {
    if (input.isolatedHome && opts.write) {
      writeRetentionOff(input.isolatedHome, io);
      wrote = true;
    }
    const verdict = effectiveRetention(input.home, input.cwd, input.env, io);
    // A dry run (doctor) counts the seat's own file as what Rigdesk will make it.
    const willBeOff =
      !opts.write &&
      input.isolatedHome &&
      (verdict.scope === 'user' || verdict.scope === 'system defaults' || verdict.scope === 'default');
    if (!verdict.enabled || willBeOff)
      return {
        ok: true,
        retention: willBeOff ? { enabled: false, scope: 'user', path: userSettingsPath(input.home) } : verdict,
        wrote,
      };
    const where = verdict.path
      ? `${verdict.scope} settings ${verdict.path}`
      : "Gemini's default (no settings file turns it off)";
    return fail(
      'RUNTIME_CONFIG_UNSAFE',
      `Gemini CLI would delete this seat's transcripts: session cleanup (general.sessionRetention.enabled) is on by ${where}, which Rigdesk does not write`,
      {
        hint: input.isolatedHome
          ? `Set "general": {"sessionRetention": {"enabled": false}} in ${verdict.path ?? 'that file'}, or remove the setting there.`
          : `Give the seat its own GEMINI_CLI_HOME in the rig spec (Rigdesk turns cleanup off there), or set "general": {"sessionRetention": {"enabled": false}} in ${verdict.path ?? userSettingsPath(input.home)}.`,
        evidence: {
          setting: 'general.sessionRetention.enabled',
          retention: verdict,
          isolatedHome: input.isolatedHome ?? null,
        },
      },
    );
  } catch (e) {
    if (!(e instanceof UnreadableSettings)) throw e;
    return fail(
      'RUNTIME_CONFIG_UNSAFE',
      `cannot tell whether Gemini CLI would delete this seat's transcripts: ${e.message}`,
      {
        hint: 'Make that settings file plain JSON (Rigdesk does not rewrite a file it cannot read), then try again.',
        evidence: { setting: 'general.sessionRetention.enabled', unreadable: e.path },
      },
    );
  }
}
