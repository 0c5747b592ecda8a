import { join } from 'node:path';
import { basename, UUID_RE, type ConversationClaim, type EvidenceIO, type RuntimeAdapter } from './types';
import { CODEX_SCREEN, readCodexPrompt, readCodexScreen } from './screens/codex';
import { codexDaemonCheck } from './codex-daemon';
import { installCodexNotify } from './hooks/codex';
import { codexSink } from './usage/codex';

/** Codex CLI (observed: 0.171.0). Facts pinned by test/agents/codex-real.test.ts. */

export const CODEX_SIGNATURES = {
  missingConversation: /No saved session found with ID (\S+?)\.|no rollout found for thread id (\S+)/,
  idle: CODEX_SCREEN.placeholder,
  working: CODEX_SCREEN.working,
  permission: CODEX_SCREEN.permission,
  usageLimit: CODEX_SCREEN.usageLimit,
} as const;

/**
 * Where Codex keeps things under CODEX_HOME (0.171.0): rollouts at
 * `sessions/YYYY/MM/DD/rollout-<ts>-<thread id>.jsonl`, writer locks at
 * `thread-writer-locks/<thread id>.lock` (the file outlives the process; only a held flock counts).
 */
export const CODEX_LAYOUT = {
  sessionsDir: 'sessions',
  rolloutFor: (name: string, id: string): boolean => name.startsWith('rollout-') && name.endsWith(`-${id}.jsonl`),
  locksDir: 'thread-writer-locks',
  lockSuffix: '.lock',
};

/** Turn boundaries in a rollout (`event_msg` payload types): the last one says whether a turn runs. */
export const CODEX_TRANSCRIPT = {
  started: ['"type":"task_started"'],
  ended: ['"type":"task_complete"', '"type":"turn_aborted"'],
};

const SUBCOMMANDS_THAT_WRITE = new Set(['resume']);

/**
 * Seats run without Codex's shared background daemon (`--no-daemon`, 0.171): with it, the daemon
 * and not the TUI in the pane runs the turns and holds the thread's writer lock, a turn goes on
 * after its pane is gone, and a second `codex resume` attaches to the same live thread. Without
 * it, the seat's TUI is the thread's one writer, holds its lock, and a stop ends the turn.
 */
export const CODEX_NO_DAEMON = '--no-daemon';
/** The flag to add before a seat's own args (once: clap refuses a repeated flag). */
const codexNoDaemon = (args: readonly string[]): string[] => (args.includes(CODEX_NO_DAEMON) ? [] : [CODEX_NO_DAEMON]);

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

/** The rollout of a thread, searched through `sessions/YYYY/MM/DD/`. */
export function findCodexRollout(home: string, id: string, io: EvidenceIO): string | undefined {
  const root = join(home, CODEX_LAYOUT.sessionsDir);
  for (const y of io.listDir(root)) {
    for (const m of io.listDir(join(root, y))) {
      for (const d of io.listDir(join(root, y, m))) {
        const hit = io.listDir(join(root, y, m, d)).find((f) => CODEX_LAYOUT.rolloutFor(f, id));
        if (hit) return join(root, y, m, d, hit);
      }
    }
  }
  return undefined;
}

/** Whether the rollout's last turn boundary opens or closes a turn; undefined when it has none. */
export function codexTurnState(tail: string): 'working' | 'idle' | undefined {
  const started = Math.max(...CODEX_TRANSCRIPT.started.map((m) => tail.lastIndexOf(m)));
  const done = Math.max(...CODEX_TRANSCRIPT.ended.map((m) => tail.lastIndexOf(m)));
  if (started < 0 && done < 0) return undefined;
  return started > done ? 'working' : 'idle';
}

export const codex: RuntimeAdapter = {
  id: 'codex',
  displayName: 'Codex',
  conversations: true,
  installHint: 'npm install -g @openai/codex',
  binary: 'codex',
  homeEnvVar: 'CODEX_HOME',
  defaultHome: (userHome) => join(userHome, '.codex'),
  canResume: true,
  choosesIdUpFront: false,
  writerArgs: codexNoDaemon,
  freshArgv(ctx) {
    return { argv: [ctx.binary, ...codexNoDaemon(ctx.args), ...ctx.args] };
  },
  resumeArgv(ctx, id) {
    return [ctx.binary, 'resume', id, ...codexNoDaemon(ctx.args), ...ctx.args];
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
  serviceRole(p) {
    // `codex app-server --listen unix:// … --managed-daemon` and `codex app-server daemon pid-update-loop`.
    const i = p.argv.indexOf('app-server');
    if (i < 0) return undefined;
    if (p.argv.includes('--managed-daemon')) return 'daemon';
    if (p.argv[i + 1] === 'daemon' && p.argv.includes('pid-update-loop')) return 'daemon_helper';
    return undefined;
  },
  liveClaims({ home, io, locks }) {
    // The writer lock is the strongest evidence: an exclusive flock held for as long as the thread
    // is loaded, by the TUI or by the background daemon (whose argv never names the thread).
    const dir = join(home, CODEX_LAYOUT.locksDir);
    const claims: ConversationClaim[] = [];
    for (const name of io.listDir(dir)) {
      if (!name.endsWith(CODEX_LAYOUT.lockSuffix) || name.startsWith('.')) continue;
      const id = name.slice(0, -CODEX_LAYOUT.lockSuffix.length);
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
    return codexTurnState(tail);
  },
  needsLocks(home, io) {
    return io
      .listDir(join(home, CODEX_LAYOUT.locksDir))
      .some((n) => n.endsWith(CODEX_LAYOUT.lockSuffix) && !n.startsWith('.'));
  },
  transcriptPath(home, _cwd, id, io) {
    return findCodexRollout(home, id, io);
  },
  readScreen: readCodexScreen,
  replyMarks: { user: /^› \S/, reply: /^• / },
  readPrompt: readCodexPrompt,
  // `y` is the "Yes, proceed" shortcut whatever is highlighted; Escape cancels.
  promptKeys: { approve: ['y'], deny: ['Escape'] },
  installHooks: (home, hooksDir, seat, io, notify) => void installCodexNotify(home, hooksDir, seat, io, notify),
  forkArgv: (ctx, from) => ({ argv: [ctx.binary, 'fork', from, ...codexNoDaemon(ctx.args), ...ctx.args] }),
  usage: { sink: codexSink },
  homeCheck: codexDaemonCheck,
  submitDelayMs: 600,
  missingConversation: CODEX_SIGNATURES.missingConversation,
};
