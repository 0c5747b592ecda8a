import { join } from 'node:path';
import { basename, UUID_RE, type ConversationClaim, type EvidenceIO, type RuntimeAdapter } from './types';
import { readCodexScreen } from './screens/codex';

/** Codex CLI (observed: 0.171.0). Facts from ../shared/docs/agent-clis.md. */

export const CODEX_SIGNATURES = {
  missingConversation: /No saved session found with ID (\S+?)\.|no rollout found for thread id (\S+)/,
  idle: /Ask Codex to do anything/,
  working: /Working \(\d+s • esc to interrupt\)/,
  permission: /Would you like to run the following command\?/,
  usageLimit: /You’ve hit your usage limit/,
} as const;

const SUBCOMMANDS_THAT_WRITE = new Set(['resume']);

/** `codex resume <id>` and `codex exec resume <id>`; `codex fork <id>` writes a new thread. */
function resumedId(argv: string[]): string | undefined {
  for (let i = 1; i < argv.length; i++) {
    if (SUBCOMMANDS_THAT_WRITE.has(argv[i]!)) {
      // Options (some with values: `--model o3`) may stand before the id: the first UUID wins.
      return argv.slice(i + 1).find((a) => UUID_RE.test(a));
    }
  }
  return undefined;
}

/** Rollouts live under sessions/YYYY/MM/DD/rollout-<ts>-<id>.jsonl. */
export function findCodexRollout(home: string, id: string, io: EvidenceIO): string | undefined {
  const root = join(home, 'sessions');
  for (const y of io.listDir(root)) {
    for (const m of io.listDir(join(root, y))) {
      for (const d of io.listDir(join(root, y, m))) {
        const hit = io.listDir(join(root, y, m, d)).find((f) => f.endsWith(`-${id}.jsonl`));
        if (hit) return join(root, y, m, d, hit);
      }
    }
  }
  return undefined;
}

export const codex: RuntimeAdapter = {
  id: 'codex',
  displayName: 'Codex',
  binary: 'codex',
  homeEnvVar: 'CODEX_HOME',
  defaultHome: (userHome) => join(userHome, '.codex'),
  canResume: true,
  choosesIdUpFront: false,
  freshArgv(ctx) {
    return { argv: [ctx.binary, ...ctx.args] };
  },
  resumeArgv(ctx, id) {
    return [ctx.binary, 'resume', id, ...ctx.args];
  },
  matches(p) {
    if (p.comm === 'codex' || basename(p.argv[0] ?? '') === 'codex') return true;
    // The npm shim: `node …/bin/codex[.js] resume <id>` carries the id too.
    return p.comm === 'node' && /\/codex(\.js)?$/.test(p.argv[1] ?? '');
  },
  conversationFromArgv(argv) {
    const a = basename(argv[0] ?? '') === 'node' ? argv.slice(1) : argv;
    return resumedId(a);
  },
  liveClaims({ home, io, locks }) {
    // The writer lock is the strongest evidence: an exclusive flock held for as long as the thread
    // is loaded, by the TUI or by the background daemon (whose argv never names the thread).
    const dir = join(home, 'thread-writer-locks');
    const claims: ConversationClaim[] = [];
    for (const name of io.listDir(dir)) {
      if (!name.endsWith('.lock') || name.startsWith('.')) continue;
      const id = name.slice(0, -5);
      const fid = io.fileId(join(dir, name));
      if (!fid) continue;
      for (const l of locks) {
        if (l.inode === fid.inode && l.devMajor === fid.devMajor && l.devMinor === fid.devMinor && l.mode === 'WRITE') {
          claims.push({ runtime: 'codex', conversationId: id, pid: l.pid, source: 'writer_lock', home });
        }
      }
    }
    return claims;
  },
  transcriptActivity(home, id, io) {
    const file = findCodexRollout(home, id, io);
    if (!file) return undefined;
    const tail = io.readTail ? io.readTail(file, 256 * 1024) : io.readFile(file);
    // The last turn boundary in the rollout says whether a turn is running.
    const started = tail.lastIndexOf('"type":"task_started"');
    const done = Math.max(tail.lastIndexOf('"type":"task_complete"'), tail.lastIndexOf('"type":"turn_aborted"'));
    if (started < 0 && done < 0) return undefined;
    return started > done ? 'working' : 'idle';
  },
  needsLocks(home, io) {
    return io.listDir(join(home, 'thread-writer-locks')).some((n) => n.endsWith('.lock') && !n.startsWith('.'));
  },
  transcriptPath(home, _cwd, id, io) {
    return findCodexRollout(home, id, io);
  },
  readScreen: readCodexScreen,
  submitDelayMs: 600,
  missingConversation: CODEX_SIGNATURES.missingConversation,
};
