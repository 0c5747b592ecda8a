import { join } from 'node:path';
import { localSettingsIO, type SettingsIO } from '../json-settings';
import { hookFileFor } from './claude';

/**
 * Codex's `notify` program, installed into a seat's OWN isolated CODEX_HOME (named in the seat's
 * env, never a person's default ~/.codex). Codex runs it at the end of every turn with a JSON
 * payload as its last argument; the program writes that payload to the seat's hook file, and the
 * engine's monitor, which watches that folder, looks at the seat at once. The payload is a trigger,
 * not evidence: Codex also notifies for side threads (its title request), whose `thread-id` is not
 * the seat's, so the rollout still says whose turn ended.
 */
const MARK = '# rigdesk-activity-hook';

/**
 * The notify program: Codex adds the payload as the last argument. It is written to a temporary
 * file of its own (`$$`, this shell's pid) and moved over the hook file: Codex notifies for a
 * side thread (its title request) and for the turn within moments of each other, and two writers
 * of one shared temporary file left one payload's JSON followed by the other's tail. On another
 * host the program also writes the seat's name into the engine's fifo there (see installClaudeHooks).
 */
export function codexNotifyArgv(file: string, seat: string, notify?: string): string[] {
  const write = (payload: string) => `umask 077; printf "%s" "${payload}" > "$0.$$.tmp" && mv "$0.$$.tmp" "$0"`;
  return notify
    ? ['/bin/sh', '-c', `${write('$3')}; [ -p "$1" ] && printf "%s\\n" "$2" 1<>"$1"; exit 0`, file, notify, seat]
    : ['/bin/sh', '-c', write('$1'), file];
}

export function installCodexNotify(
  codexHome: string,
  hooksDir: string,
  seat: string,
  io: SettingsIO = localSettingsIO,
  notify?: string,
): 'installed' | 'kept_theirs' | 'unreadable' {
  io.ensureDir(hooksDir, 0o700);
  const argv = codexNotifyArgv(hookFileFor(hooksDir, seat), seat, notify);
  // TOML basic strings take JSON's escapes for what appears here (quotes, backslashes).
  const line = `notify = [${argv.map((x) => JSON.stringify(x)).join(', ')}] ${MARK}`;
  const path = join(codexHome, 'config.toml');
  let text = '';
  try {
    text = io.readText(path) ?? '';
  } catch {
    return 'unreadable';
  }
  const lines = text.split('\n');
  const firstTable = lines.findIndex((l) => /^\s*\[/.test(l));
  const top = firstTable < 0 ? lines.length : firstTable;
  const existing = lines.slice(0, top).findIndex((l) => /^\s*notify\s*=/.test(l));
  if (existing >= 0) {
    if (!lines[existing]!.includes(MARK)) return 'kept_theirs'; // a person's own notify: never replaced
    lines[existing] = line;
  } else {
    // Top-level keys must come before the first [table] in TOML.
    lines.splice(top, 0, line);
  }
  io.writeText(path, lines.join('\n'));
  return 'installed';
}
