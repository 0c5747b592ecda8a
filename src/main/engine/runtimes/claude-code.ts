import { join } from 'node:path';
import { basename, flagValue, UUID_RE, type ConversationClaim, type RuntimeAdapter } from './types';

/**
 * Claude Code (observed: 2.1.197). Facts from ../shared/docs/agent-clis.md; every signature and
 * path Claude-specific lives in this module only.
 */

/** `projects/<cwd with every non-alphanumeric character replaced by "-">`. */
export function claudeProjectSlug(cwd: string): string {
  return cwd.replace(/[^A-Za-z0-9]/g, '-');
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
  binary: 'claude',
  homeEnvVar: 'CLAUDE_CONFIG_DIR',
  defaultHome: (userHome) => join(userHome, '.claude'),
  canResume: true,
  choosesIdUpFront: true,
  freshArgv(ctx) {
    const id = ctx.newId();
    return { argv: [ctx.binary, '--session-id', id, ...ctx.args], conversationId: id };
  },
  resumeArgv(ctx, id) {
    return [ctx.binary, '--resume', id, ...ctx.args];
  },
  matches(p) {
    const a0 = basename(p.argv[0] ?? '');
    return p.comm === 'claude' || p.comm === 'claude.exe' || a0 === 'claude' || a0 === 'claude.exe';
  },
  conversationFromArgv(argv) {
    // --fork-session reads the named conversation but writes a new one: not a claim on it.
    if (argv.includes('--fork-session')) return flagValue(argv, '--session-id');
    const id = flagValue(argv, '--session-id', '--resume', '-r');
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
      claims.push({ runtime: 'claude-code', conversationId: st.sessionId, pid, source: 'live_state', home, detail: st.status });
    }
    return claims;
  },
  transcriptPath(home, cwd, id, io) {
    const p = join(home, 'projects', claudeProjectSlug(cwd), `${id}.jsonl`);
    return io.exists(p) ? p : undefined;
  },
  missingConversation: CLAUDE_SIGNATURES.missingConversation,
};

/** Reads the status Claude keeps in its live-state file for one pid. */
export function claudeLiveStatus(home: string, pid: number, io: { readFile(p: string): string }): { status: string; waitingFor?: string; sessionId?: string } | undefined {
  try {
    const st = JSON.parse(io.readFile(join(home, 'sessions', `${pid}.json`))) as LiveStateFile;
    return st.status ? { status: st.status, waitingFor: st.waitingFor, sessionId: st.sessionId } : undefined;
  } catch {
    return undefined;
  }
}
