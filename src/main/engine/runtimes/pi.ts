import { join } from 'node:path';
import { basename, flagValue, type EvidenceIO, type RuntimeAdapter } from './types';
import { readPiScreen } from './screens/pi';

/**
 * Pi coding agent (observed: 0.73.1). Pi rewrites its own command line, holds no lock and keeps
 * no file open, so a live Pi's conversation is known only from how Rigdesk launched it; a Pi in
 * the same folder and agent dir whose conversation is unknown is a possible owner, and that doubt
 * is the answer (custody refuses).
 */

export const PI_SIGNATURES = {
  missingConversation: /No session found matching '([^']+)'/,
  working: /Working\.\.\./,
  usageLimit: /Error: 429|Retry failed after \d+ attempts: 429/,
} as const;

/** sessions/--<cwd with "/" replaced by "-">--/<ISO ts>_<id>.jsonl */
export function piSessionDir(home: string, cwd: string): string {
  return join(home, 'sessions', `--${cwd.replace(/^\//, '').replace(/\//g, '-')}--`);
}

export function findPiSession(home: string, cwd: string, id: string, io: EvidenceIO): string | undefined {
  const dir = piSessionDir(home, cwd);
  const hit = io.listDir(dir).find((f) => f.endsWith(`_${id}.jsonl`));
  return hit ? join(dir, hit) : undefined;
}

export const pi: RuntimeAdapter = {
  id: 'pi',
  displayName: 'Pi',
  binary: 'pi',
  homeEnvVar: 'PI_CODING_AGENT_DIR',
  defaultHome: (userHome) => join(userHome, '.pi', 'agent'),
  canResume: true,
  choosesIdUpFront: false,
  freshArgv(ctx) {
    return { argv: [ctx.binary, ...ctx.args] };
  },
  resumeArgv(ctx, id) {
    return [ctx.binary, '--session', id, ...ctx.args];
  },
  matches(p) {
    const first = (p.argv[0] ?? '').trim().split(/\s+/)[0] ?? '';
    return p.comm === 'pi' || basename(first) === 'pi';
  },
  conversationFromArgv(argv) {
    // Only when the argv was not rewritten (a shim, or an older Pi); a path names a file, not an id.
    const v = flagValue(argv, '--session');
    if (!v || v.includes('/')) return undefined;
    return v;
  },
  transcriptPath(home, cwd, id, io) {
    return findPiSession(home, cwd, id, io);
  },
  readScreen: readPiScreen,
  missingConversation: PI_SIGNATURES.missingConversation,
};
