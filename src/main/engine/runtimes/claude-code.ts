import { join } from 'node:path';
import { basename, flagValue, SESSION_ID_ARGV, UUID_RE, type ConversationClaim, type RuntimeAdapter } from './types';
import { readClaudePrompt, readClaudeScreen } from './screens/claude';
import { installClaudeHooks, readClaudeHook } from './hooks/claude';
import { claudeDeclaredWindow, claudeSink } from './usage/claude';

/**
 * Claude Code (observed: 2.1.197). Facts pinned by test/agents/claude-real.test.ts; every signature and
 * path Claude-specific lives in this module only.
 */

/**
 * The folder Claude Code uses under `projects/` for a cwd (observed on 2.1.197): every UTF-16
 * code unit that is not an ASCII letter or digit becomes `-`; a name over 200 characters is cut to
 * 200 and suffixed with `-` and a base-36 Java-style hash of the whole path. Claude resolves
 * symlinks in its cwd first; callers pass the real path.
 */
export function claudeProjectSlug(cwd: string): string {
  const slug = cwd.replace(/[^a-zA-Z0-9]/g, '-');
  if (slug.length <= 200) return slug;
  let h = 0;
  for (let i = 0; i < cwd.length; i++) h = ((h << 5) - h + cwd.charCodeAt(i)) | 0;
  return `${slug.slice(0, 200)}-${Math.abs(h).toString(36)}`;
}

/** Where a conversation's transcript lives: `$CLAUDE_CONFIG_DIR/projects/<slug>/<id>.jsonl`. */
export function claudeTranscriptFile(home: string, realCwd: string, id: string): string {
  return join(home, 'projects', claudeProjectSlug(realCwd), `${id}.jsonl`);
}

export const CLAUDE_SIGNATURES = {
  missingConversation: /No conversation found with session ID: (\S+)/,
  idle: /\? for shortcuts/,
  working: /esc to interrupt/,
  permission: /Do you want to proceed\?/,
  usageLimit: /API Error: Request rejected \(429\)|usage limit reached|hit your .* limit/i,
} as const;

interface LiveStateFile {
  pid?: number;
  sessionId?: string;
  procStart?: string;
  status?: string;
  waitingFor?: string;
  kind?: string;
}

export const claudeCode: RuntimeAdapter = {
  id: 'claude-code',
  displayName: 'Claude Code',
  conversations: true,
  installHint: 'npm install -g @anthropic-ai/claude-code',
  binary: 'claude',
  homeEnvVar: 'CLAUDE_CONFIG_DIR',
  defaultHome: (userHome) => join(userHome, '.claude'),
  ...SESSION_ID_ARGV,
  matches(p) {
    const a0 = basename(p.argv[0] ?? '');
    return p.comm === 'claude' || p.comm === 'claude.exe' || a0 === 'claude' || a0 === 'claude.exe';
  },
  conversationFromArgv(argv) {
    // --fork-session reads the named conversation but writes a new one: not a claim on it.
    const id = argv.includes('--fork-session')
      ? flagValue(argv, '--session-id')
      : flagValue(argv, '--session-id', '--resume', '-r');
    return id && UUID_RE.test(id) ? id : undefined;
  },
  liveClaims({ home, io, alive }) {
    // sessions/<pid>.json exists while an interactive claude runs and names its *current*
    // conversation (it follows /clear, which argv does not).
    const dir = join(home, 'sessions');
    const claims: ConversationClaim[] = [];
    for (const name of io.listDir(dir)) {
      if (!/^\d+\.json$/.test(name)) continue;
      let st: LiveStateFile;
      try {
        st = JSON.parse(io.readFile(join(dir, name))) as LiveStateFile;
      } catch (e) {
        if ((e as NodeJS.ErrnoException).code === 'ENOENT') continue; // removed as we read: process exited
        if (e instanceof SyntaxError) continue; // half-written; the argv claim still stands
        throw e;
      }
      const pid = st.pid ?? Number(name.slice(0, -5));
      if (!st.sessionId || !alive(pid, st.procStart)) continue;
      claims.push({
        runtime: 'claude-code',
        conversationId: st.sessionId,
        pid,
        source: 'live_state',
        home,
        detail: st.status,
      });
    }
    return claims;
  },
  transcriptPath(home, cwd, id, io) {
    const p = claudeTranscriptFile(home, cwd, id);
    return io.exists(p) ? p : undefined;
  },
  readScreen: readClaudeScreen,
  replyMarks: { user: /^[❯>] \S/, reply: /^● / },
  readPrompt: readClaudePrompt,
  // A select list whose first option ("Yes") is highlighted: Enter takes it; Escape cancels the call.
  promptKeys: { approve: ['Enter'], deny: ['Escape'] },
  missingConversation: CLAUDE_SIGNATURES.missingConversation,
  installHooks: (home, hooksDir, seat, io, notify) => installClaudeHooks(home, hooksDir, seat, io, notify),
  readHook: readClaudeHook,
  liveStatus: (home, pid, io) => claudeLiveStatus(home, pid, io),
  idleMarked: (r) => r.activity === 'idle' && r.matched?.includes('? for shortcuts') === true,
  forkArgv(ctx, from) {
    const id = ctx.newId();
    return {
      argv: [ctx.binary, '--resume', from, '--fork-session', '--session-id', id, ...ctx.args],
      conversationId: id,
    };
  },
  usage: {
    sink: claudeSink,
    declaredWindow: (home, t, readConfig) => {
      const text = readConfig(join(home, 'settings.json'));
      return text ? claudeDeclaredWindow(text, t.model) : undefined;
    },
  },
};

/** Reads the status Claude keeps in its live-state file for one pid. */
export function claudeLiveStatus(
  home: string,
  pid: number,
  io: { readFile(p: string): string },
): { status: string; waitingFor?: string; sessionId?: string } | undefined {
  try {
    const st = JSON.parse(io.readFile(join(home, 'sessions', `${pid}.json`))) as LiveStateFile;
    return st.status ? { status: st.status, waitingFor: st.waitingFor, sessionId: st.sessionId } : undefined;
  } catch {
    return undefined;
  }
}
