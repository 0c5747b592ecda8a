import { join } from 'node:path';
import { basename, flagValue, SESSION_ID_ARGV, UUID_RE, type EvidenceIO, type RuntimeAdapter } from './types';
import { QWEN_PROMPT, readQwenPrompt, readQwenScreen } from './screens/qwen';
import { prepareQwenSeat } from './qwen-settings';
import { qwenSink } from './usage/qwen';

/**
 * Qwen Code (observed: 0.15.10; facts pinned by test/agents/qwen-real.test.ts). A node script that
 * relaunches itself once (`node …/qwen …` → `node [--max-old-space-size=N] …/qwen …`, the child
 * marked QWEN_CODE_NO_RELAUNCH): two `node` processes per Qwen, both carrying the arguments. It
 * takes a conversation id up front (`--session-id <uuid>`, refused when in use) and resumes by id
 * (`--resume <uuid>`); it holds no lock and keeps no transcript open, so argv is the only live
 * evidence, and a Qwen started without an id (`qwen`, `qwen -c`, the `--resume` picker, or
 * `--resume <title>`, which Qwen resolves by the conversation's title) writes a conversation
 * nothing names: custody doubts it. Qwen's own `/clear` and `/resume` switch conversations inside
 * the same process and leave argv as it was (as Claude's /clear does, but Qwen keeps no live-state
 * file to say so): after them the argv claim names the conversation the seat started on, not the
 * one it writes now. Nothing found so far tells them apart (UNTESTED beyond reading the CLI).
 */
export const QWEN_SIGNATURES = {
  // Codex prints the same first words; only Qwen names itself in the hint after them.
  missingConversation: /No saved session found with (?:ID (\S+)\. Run `qwen --resume`|title "([^"]*)"\.)/,
} as const;

/**
 * Where Qwen keeps things (0.15.10, `Storage`): its global dir is `$QWEN_HOME` or `~/.qwen`
 * (settings.json, debug logs); conversations go under the runtime dir (QWEN_RUNTIME_DIR, else the
 * setting advanced.runtimeOutputDir, else the global dir) as
 * `projects/<cwd with every non-alphanumeric → "-">/chats/<uuid>.jsonl`. Rigdesk isolates a seat
 * by QWEN_HOME and reads the default runtime dir only.
 */
export const QWEN_LAYOUT = {
  slug: (cwd: string): string => cwd.replace(/[^a-zA-Z0-9]/g, '-'),
  /** The script node runs for Qwen: the npm bin link, or the package's own entry point. */
  nodeScript: /(?:^|\/)qwen$|\/@qwen-code\/qwen-code\/cli\.js$/,
};

export function qwenTranscriptFile(home: string, realCwd: string, id: string): string {
  return join(home, 'projects', QWEN_LAYOUT.slug(realCwd), 'chats', `${id}.jsonl`);
}

/** The script argument of a node command line (past node's own flags, which the relaunch adds). */
function nodeScriptOf(argv: readonly string[]): string | undefined {
  return argv.slice(1).find((a) => !a.startsWith('-'));
}

export const qwen: RuntimeAdapter = {
  // Qwen ignores NO_PROXY: its proxy setting goes into the seat's own config, or the launch says why not.
  prepareCheckName: (seat) => `proxy for ${seat}'s qwen CLI`,
  prepareSeat(input, { write }) {
    const q = prepareQwenSeat({
      seatEnv: input.seatEnv,
      effectiveEnv: input.env,
      userHome: input.env.HOME ?? input.userHome,
      dryRun: !write,
      io: input.io,
    });
    if (!q.ok) return q;
    return { ok: true, detail: q.proxy ? `Qwen uses ${q.proxy}` : 'no proxy variables' };
  },
  id: 'qwen',
  displayName: 'Qwen Code',
  conversations: true,
  installHint: 'npm install -g @qwen-code/qwen-code',
  whyNoFork: ' (Qwen Code 0.15 has no fork of a conversation: only --resume, which writes into it)',
  usage: { sink: qwenSink },
  binary: 'qwen',
  homeEnvVar: 'QWEN_HOME',
  defaultHome: (userHome) => join(userHome, '.qwen'),
  ...SESSION_ID_ARGV,
  matches(p) {
    const a0 = basename((p.argv[0] ?? '').trim().split(/\s+/)[0] ?? '');
    if (p.comm === 'qwen' || a0 === 'qwen') return true;
    return (
      (p.comm === 'node' || basename(p.argv[0] ?? '') === 'node') &&
      QWEN_LAYOUT.nodeScript.test(nodeScriptOf(p.argv) ?? '')
    );
  },
  conversationFromArgv(argv) {
    // `--resume` without an id opens a picker, and `-c` the latest: neither names a conversation.
    const id = flagValue(argv, '--session-id', '--resume', '-r');
    return id && UUID_RE.test(id) ? id : undefined;
  },
  transcriptPath(home, cwd, id, io: EvidenceIO) {
    const p = qwenTranscriptFile(home, cwd, id);
    return io.exists(p) ? p : undefined;
  },
  readScreen: readQwenScreen,
  readPrompt: ({ plain }) => readQwenPrompt(plain),
  // Enter takes the selected option, "1. Yes, allow once" when the dialog opens.
  promptKeys: QWEN_PROMPT.keys,
  doubtsUnnamed: true,
  missingConversation: QWEN_SIGNATURES.missingConversation,
};
