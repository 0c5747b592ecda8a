import { liveFs } from '../deps';
import { join } from 'node:path';
import { basename, type ConversationClaim, type RuntimeAdapter } from './types';
import {
  findOpencodeSession,
  OPENCODE_LAYOUT,
  opencodeSessionClaims,
  readOpencodeSessions,
  startedAtMs,
} from './opencode-sessions';
import { readOpencodePrompt, readOpencodeScreen } from './screens/opencode';

/**
 * OpenCode (observed: opencode-ai 1.18.33, one native Bun binary; facts pinned by test/agents/opencode-real.test.ts).
 *
 * Its "home" here is the data dir, `$XDG_DATA_HOME` (default `~/.local/share`): the sessions of
 * every folder live in `opencode/opencode.db` under it, so two processes conflict exactly when they
 * share it. Config comes from `$XDG_CONFIG_HOME/opencode/` (or `OPENCODE_CONFIG`), which a seat
 * isolates through its env like any other variable.
 *
 * There is no flag to choose a session id: a fresh launch is plain `opencode`, and the session it
 * creates (on its first prompt) is found in the database and proven to be that process's (see
 * opencode-sessions.ts). A resume is `opencode -s <id>`, which puts the id on the command line.
 */

export const OPENCODE_SIGNATURES = {
  /** `opencode -s ses_x` / `opencode run -s ses_x "…"` print `Error: Session not found[: ses_x]`; a malformed id, `Invalid session ID`. */
  missingConversation: /Session not found(?:: (ses_\S+))?|Invalid session ID/,
} as const;

/** Flags that name the session a process writes; `--fork` makes a new one from it instead. */
const SESSION_FLAGS = new Set(['-s', '--session']);

/** The session `opencode [run] -s <id>` writes, unless it forks it. */
export function opencodeSessionFromArgv(argv: readonly string[]): string | undefined {
  if (argv.includes('--fork')) return undefined;
  for (let i = 1; i < argv.length; i++) {
    const a = argv[i]!;
    if (a === '--') break;
    let v: string | undefined;
    if (SESSION_FLAGS.has(a)) v = argv[i + 1];
    else if (a.startsWith('--session=')) v = a.slice('--session='.length);
    else if (a.startsWith('-s=')) v = a.slice(3);
    if (v !== undefined) return OPENCODE_LAYOUT.sessionId.test(v) ? v : undefined;
  }
  return undefined;
}

export const opencode: RuntimeAdapter = {
  id: 'opencode',
  displayName: 'OpenCode',
  conversations: true,
  whyNoFork: " yet (a fresh session's id is not on its command line, and `--fork` is unchecked)",
  // Its sessions are rows of one SQLite database per data dir (usage/opencode.ts reads them).
  usage: { database: true },
  binary: 'opencode',
  homeEnvVar: 'XDG_DATA_HOME',
  doubtsUnnamed: true,
  defaultHome: (userHome) => join(userHome, '.local', 'share'),
  canResume: true,
  choosesIdUpFront: false,
  freshArgv(ctx) {
    return { argv: [ctx.binary, ...ctx.args] };
  },
  resumeArgv(ctx, id) {
    return [ctx.binary, '-s', id, ...ctx.args];
  },
  matches(p) {
    // The npm bin link runs the platform binary itself (`opencode.exe` in the package): no shim.
    const a0 = basename(p.argv[0] ?? '');
    return p.comm === 'opencode' || p.comm === 'opencode.exe' || a0 === 'opencode' || a0 === 'opencode.exe';
  },
  conversationFromArgv: opencodeSessionFromArgv,
  liveClaims({ home, io, processes }): ConversationClaim[] {
    const mine = (processes ?? []).map((p) => ({ ...p, startedAtMs: startedAtMs(p.startTime, io) }));
    if (mine.length === 0) return [];
    const dirs = [...new Set(mine.map((p) => p.cwd).filter((d): d is string => d !== undefined))];
    return opencodeSessionClaims({ home, processes: mine, sessions: readOpencodeSessions(home, dirs, io) });
  },
  transcriptPath(home, _cwd, id, io) {
    // One database holds every session: the "transcript" of a session is that file, when it has the row.
    return findOpencodeSession(home, id, io) ? OPENCODE_LAYOUT.dbFile(home) : undefined;
  },
  seatEnv({ seatDir, env, ensureDir }) {
    // OpenCode's Bun binary unpacks ~19 MB of .so files into TMPDIR on every start and leaves them
    // there: a seat's go into Rigdesk's own folder for it, not the system's temp dir. And a CLI
    // that replaces its own binary mid-run has no place under orchestration.
    const out: Record<string, string> = {};
    if (env.TMPDIR === undefined) {
      const tmp = join(seatDir, 'tmp');
      try {
        if (ensureDir) ensureDir(tmp);
        else liveFs.mkdirSync(tmp, { recursive: true, mode: 0o700 });
        out.TMPDIR = tmp;
      } catch {
        // Rigdesk's home not writable: the launch itself fails on it further on, with its own error.
      }
    }
    if (env.OPENCODE_DISABLE_AUTOUPDATE === undefined) out.OPENCODE_DISABLE_AUTOUPDATE = '1';
    return out;
  },
  readScreen: readOpencodeScreen,
  readPrompt: ({ plain, styled }) => readOpencodePrompt(plain, styled),
  // `Allow once   Allow always   Reject`, opened on Allow once: Enter takes the highlighted one
  // (readPrompt checks it is still Allow once); Escape rejects.
  promptKeys: { approve: ['Enter'], deny: ['Escape'] },
  missingConversation: OPENCODE_SIGNATURES.missingConversation,
};
