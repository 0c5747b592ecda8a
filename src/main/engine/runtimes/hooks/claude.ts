import { join } from 'node:path';
import { localSettingsIO, type SettingsIO } from '../json-settings';

/**
 * Claude Code hooks that Rigdesk installs into a seat's OWN isolated config (a CLAUDE_CONFIG_DIR
 * named in the seat's env, never a person's default ~/.claude). Each hook writes the event Claude
 * hands it (JSON on stdin: hook_event_name, session_id, …) to one file per seat, atomically; the
 * engine reads it as the strongest activity evidence and watches the folder for changes. A seat on
 * another host gets them in its home there (`io` over that host), writing to a folder there.
 */
export const CLAUDE_HOOK_EVENTS = [
  'SessionStart',
  'UserPromptSubmit',
  'PreToolUse',
  'PostToolUse',
  'Notification',
  'PermissionRequest',
  'Stop',
] as const;

/** Marks our entries so a later install replaces them and never touches anyone else's hooks. */
const MARK = 'rigdesk-activity-hook';

function shQuote(s: string): string {
  return `'${s.replace(/'/g, `'\\''`)}'`;
}

export function hookFileFor(hooksDir: string, seat: string): string {
  return join(hooksDir, `${seat}.json`);
}

interface HookEntry {
  matcher?: string;
  hooks: { type: string; command: string }[];
}

/**
 * The hook's shell command: the event on stdin goes to a temporary file of this shell's own (`$$`)
 * and is moved over the hook file, so two hooks firing together never share one temporary file
 * (that left one event's JSON followed by another's tail).
 */
export function claudeHookCommand(file: string, seat: string, notify?: string): string {
  const tmp = `${shQuote(file)}.$$.tmp`;
  // umask: the event file is the user's only (0600), as everything in Rigdesk's home.
  const write = `umask 077; cat > ${tmp} && mv ${tmp} ${shQuote(file)}`;
  const tell = notify
    ? `; [ -p ${shQuote(notify)} ] && printf '%s\\n' ${shQuote(seat)} 1<>${shQuote(notify)}; exit 0`
    : '';
  return `${write}${tell} # ${MARK}`;
}

/**
 * `notify` (a seat on another host): a fifo the engine's stream there reads; the hook also writes
 * the seat's name into it, opened read-write so it never waits, and only when it is a fifo.
 */
export function installClaudeHooks(
  configDir: string,
  hooksDir: string,
  seat: string,
  io: SettingsIO = localSettingsIO,
  notify?: string,
): void {
  io.ensureDir(hooksDir, 0o700);
  const command = claudeHookCommand(hookFileFor(hooksDir, seat), seat, notify);
  const settingsPath = join(configDir, 'settings.json');
  let settings: Record<string, unknown> = {};
  let before: string | undefined;
  try {
    before = io.readText(settingsPath);
    if (before !== undefined) settings = JSON.parse(before) as Record<string, unknown>;
  } catch {
    return; // a file we cannot read is not ours to rewrite; activity falls back to other evidence
  }
  const hooks = (settings.hooks ?? {}) as Record<string, HookEntry[]>;
  for (const ev of CLAUDE_HOOK_EVENTS) {
    const kept = (hooks[ev] ?? []).filter((h) => !h.hooks?.some((x) => x.command?.includes(MARK)));
    hooks[ev] = [
      ...kept,
      {
        ...(ev === 'PreToolUse' || ev === 'PostToolUse' ? { matcher: '*' } : {}),
        hooks: [{ type: 'command', command }],
      },
    ];
  }
  settings.hooks = hooks;
  // A relaunch finds the file as the last launch left it: rewriting it anyway cost a temporary
  // file and a rename per seat (a restore of 200 relaunches them all at once).
  const after = `${JSON.stringify(settings, null, 2)}\n`;
  if (after !== before) io.writeText(settingsPath, after);
}

/** What the last hook event says about the seat. */
export function readClaudeHook(raw: string): {
  activity?: 'working' | 'idle';
  needsInput?: 'permission' | 'question';
  sessionId?: string;
  event?: string;
} {
  let e: { hook_event_name?: string; session_id?: string; message?: string; notification_type?: string };
  try {
    e = JSON.parse(raw) as typeof e;
  } catch {
    return {};
  }
  const base = { sessionId: e.session_id, event: e.hook_event_name };
  switch (e.hook_event_name) {
    case 'UserPromptSubmit':
    case 'PreToolUse':
    case 'PostToolUse':
      return { ...base, activity: 'working' };
    case 'Stop':
    case 'SessionStart':
      return { ...base, activity: 'idle' };
    case 'PermissionRequest':
      return { ...base, needsInput: 'permission' };
    case 'Notification':
      if (/permission/i.test(`${e.message ?? ''} ${e.notification_type ?? ''}`))
        return { ...base, needsInput: 'permission' };
      if (/waiting for your input|idle/i.test(`${e.message ?? ''} ${e.notification_type ?? ''}`))
        return { ...base, activity: 'idle' };
      return base;
    default:
      return base;
  }
}
