import { join } from 'node:path';
import { basename, flagValue, SESSION_ID_ARGV, type EvidenceIO, type RuntimeAdapter } from './types';
import { readGeminiPrompt, readGeminiScreen } from './screens/gemini';
import { prepareGeminiSeat } from './gemini-settings';
import { geminiTakingUp } from './gemini-resume';
import { geminiSink } from './usage/gemini';

/**
 * Gemini CLI (observed: @google/gemini-cli 0.61.0; facts pinned by test/journeys/gemini.test.ts). Its id can
 * be chosen up front (`--session-id`), so a seat's conversation is on the command line of both of
 * its processes (a node launcher and the node child it relaunches with a larger heap); it holds no
 * lock and keeps no file open, so argv is the evidence, and a live Gemini in the same folder whose
 * argv names no conversation is a possible owner (custody refuses).
 */

export const GEMINI_SIGNATURES = {
  /**
   * Exit code 42 with these words (interactive and `-p` alike); 42 alone is any input error. With no
   * resumable file in the project at all Gemini names no id: "No previous sessions found".
   */
  missingConversation:
    /Error resuming session: (?:Invalid session identifier "([^"]+)"|No previous sessions found for this project)/,
} as const;

/**
 * Where Gemini keeps a conversation under its home (GEMINI_CLI_HOME, else HOME):
 * `.gemini/projects.json` maps each cwd to a short project name (`{"projects":{"<cwd>":"work"}}`,
 * names made unique with a suffix), and transcripts are
 * `.gemini/tmp/<short name>/chats/session-<YYYY-MM-DDTHH-MM>-<first 8 of the id>.jsonl`, whose first
 * line is `{"sessionId":…,"projectHash":…,"startTime":…,"kind":"main"}`. A resume in a later minute
 * adds a header-only stub with the same id8; a file recreated after cleanup has no header.
 */
export const GEMINI_LAYOUT = {
  dir: '.gemini',
  projects: 'projects.json',
  chatsOf: (short: string): string => join('tmp', short, 'chats'),
  fileFor: (name: string, id: string): boolean =>
    name.startsWith('session-') && name.endsWith(`-${id.slice(0, 8)}.jsonl`),
  /** The script node runs for Gemini: the npm bin link, or the bundle it points to. */
  nodeScript: /(?:^|\/)gemini$|\/gemini-cli\/bundle\/gemini\.js$/,
};

/** `--resume latest`, `--resume 3`: a conversation Gemini picks, which argv cannot name. */
const NOT_AN_ID = /^(latest|\d+)$/;
/** Subcommand-like flags that read or delete conversations but never write one. */
const READ_ONLY = ['--list-sessions', '--delete-session', '--version', '-v', '--help', '-h'];

const NODE_FLAGS_WITH_VALUE =
  /^(-[rep]|--require|--import|--loader|--experimental-loader|--eval|--print|-C|--conditions|--title|--env-file|--input-type)$/;

/** The arguments after node and its own flags, when argv runs Gemini's script under node. */
function geminiArgs(argv: readonly string[]): string[] | undefined {
  if (argv.length === 0) return undefined;
  if (basename(argv[0]!) === 'gemini') return argv.slice(1);
  if (basename(argv[0]!) !== 'node') return undefined;
  let i = 1;
  // Node's own flags (`--max-old-space-size=N`); one that takes its value apart or runs other code
  // (`--require X`, `-e`) makes the script position unknowable, so no claim.
  while (i < argv.length && argv[i]!.startsWith('-')) {
    if (NODE_FLAGS_WITH_VALUE.test(argv[i]!)) return undefined;
    i++;
  }
  return i < argv.length && GEMINI_LAYOUT.nodeScript.test(argv[i]!) ? argv.slice(i + 1) : undefined;
}

export function geminiShortName(home: string, cwd: string, io: EvidenceIO): string | undefined {
  try {
    const map = JSON.parse(io.readFile(join(home, GEMINI_LAYOUT.dir, GEMINI_LAYOUT.projects))) as {
      projects?: Record<string, unknown>;
    };
    const v = map.projects?.[cwd];
    return typeof v === 'string' && v !== '' && !v.includes('/') ? v : undefined;
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code === 'ENOENT' || e instanceof SyntaxError) return undefined;
    throw e;
  }
}

/** The id in a transcript's header line, if it starts with one. */
export function geminiHeaderId(text: string): string | undefined {
  try {
    const head = JSON.parse(text.split('\n', 1)[0]!) as { sessionId?: unknown };
    return typeof head.sessionId === 'string' && head.sessionId !== '' ? head.sessionId : undefined;
  } catch {
    return undefined;
  }
}

/**
 * The transcript of a conversation: of the files with its id8 in the cwd's project, those whose
 * header names the whole id, the largest (a resume stub holds only a header and the session
 * context). A file without a header (what a live Gemini recreates after cleanup deleted its file)
 * is not one: Gemini cannot resume it ("No previous sessions found"), so it does not count.
 */
export function findGeminiTranscript(home: string, cwd: string, id: string, io: EvidenceIO): string | undefined {
  const short = geminiShortName(home, cwd, io);
  if (!short) return undefined;
  const dir = join(home, GEMINI_LAYOUT.dir, GEMINI_LAYOUT.chatsOf(short));
  let best: { path: string; size: number } | undefined;
  for (const name of io
    .listDir(dir)
    .filter((n) => GEMINI_LAYOUT.fileFor(n, id))
    .sort()) {
    const path = join(dir, name);
    let text: string;
    try {
      text = io.readFile(path);
    } catch {
      continue; // deleted as we read (Gemini's cleanup)
    }
    if (geminiHeaderId(text) !== id) continue;
    if (!best || text.length > best.size) best = { path, size: text.length };
  }
  return best?.path;
}

export const gemini: RuntimeAdapter = {
  // Gemini's session cleanup deletes transcripts: off in the seat's own settings, or no launch.
  prepareCheckName: (seat) => `gemini session retention (${seat})`,
  prepareSeat(input, { write }) {
    const isolatedHome = input.seatEnv.GEMINI_CLI_HOME;
    const r = prepareGeminiSeat(
      { isolatedHome, home: input.home, cwd: input.cwd, env: input.env, io: input.io },
      { write },
    );
    if (!r.ok) return r;
    return {
      ok: true,
      detail: `cleanup off (${isolatedHome ? "Rigdesk writes it into the seat's own settings" : `${r.retention.scope} settings`})`,
    };
  },
  id: 'gemini',
  displayName: 'Gemini CLI',
  conversations: true,
  whyNoFork: ' (Gemini CLI 0.61 has no fork of a conversation: only --resume, which writes into it)',
  usage: { sink: geminiSink },
  doubtsUnnamed: true,
  binary: 'gemini',
  // GEMINI_CLI_HOME replaces the home directory Gemini's files live under (`<it>/.gemini/…`).
  homeEnvVar: 'GEMINI_CLI_HOME',
  defaultHome: (userHome) => userHome,
  ...SESSION_ID_ARGV,
  matches(p) {
    if (p.comm === 'gemini') return true;
    return geminiArgs(p.argv) !== undefined;
  },
  conversationFromArgv(argv) {
    const args = geminiArgs(argv);
    if (!args || args.some((a) => READ_ONLY.includes(a))) return undefined;
    const id = flagValue(args, '--session-id', '--resume', '-r');
    return id && !NOT_AN_ID.test(id) ? id : undefined;
  },
  transcriptPath(home, cwd, id, io) {
    return findGeminiTranscript(home, cwd, id, io);
  },
  takingUp: geminiTakingUp,
  readScreen: readGeminiScreen,
  readPrompt: ({ plain }) => {
    const p = readGeminiPrompt(plain);
    return (
      p && {
        ...p,
        ...(p.approveReady
          ? {}
          : { why: 'the highlighted option is not "1. Allow once" (it was moved in the terminal)' }),
      }
    );
  },
  // A select list whose highlighted option (`●`) Enter takes; Escape cancels.
  promptKeys: { approve: ['Enter'], deny: ['Escape'] },
  // Gemini swallows an Enter that follows pasted text too closely (§2.1; 0.05 s was enough).
  submitDelayMs: 300,
  missingConversation: GEMINI_SIGNATURES.missingConversation,
};
