import type { DoctorCheck } from '../../../shared/contract';
import type { Result } from '../../../shared/errors';
import type { ProcInfo } from '../proc/types';
import type { SettingsIO } from './json-settings';
import type { UsageReader } from './usage/records';

/** What a seat's launch needs to know; built by the engine from the seat row. */
export interface LaunchContext {
  /** Absolute path of the runtime's program, already found on the seat's PATH. */
  binary: string;
  cwd: string;
  /** Extra arguments from the spec. */
  args: string[];
  /** The runtime's config home for this seat (CLAUDE_CONFIG_DIR, CODEX_HOME, ...), if any. */
  home?: string;
  /** Fresh id generator (uuid v4), injectable for tests. */
  newId: () => string;
  /**
   * What the agent will see: the engine's env (identity scrubbed) under the seat's. For a runtime
   * whose files depend on it (omp names a cwd's session folder after HOME and TMPDIR).
   */
  env?: Readonly<Record<string, string | undefined>>;
  /** Where the launch's own files are made: this machine by default, or the seat's host. */
  files?: LaunchFiles;
}

/**
 * Files a launch makes before its program starts (Pi's fresh session header). On another host they
 * are kept and written there in one round trip just before the pane is created.
 */
export interface LaunchFiles {
  /** The path as the program will see it (symlinks resolved where that can be told), else the path. */
  realPath(path: string): string;
  /** A new file and its folders; throws when it exists or cannot be made. */
  createNew(path: string, text: string): void;
}

/** Where a claim of "process P writes conversation C" comes from. Strongest first. */
export type ClaimSource = 'writer_lock' | 'live_state' | 'argv' | 'store';

export interface ConversationClaim {
  runtime: string;
  conversationId: string;
  pid: number;
  startTime?: string;
  source: ClaimSource;
  home?: string;
  detail?: string;
}

/** Reads the runtime-specific evidence files; injectable so a probe failure can be forced. */
export interface EvidenceIO {
  listDir(path: string): string[]; // [] when absent; throws (with .code) when unreadable
  readFile(path: string): string; // throws ENOENT when absent
  exists(path: string): boolean;
  /** device + inode of a file, for matching /proc/locks entries. */
  fileId(path: string): { devMajor: number; devMinor: number; inode: number } | undefined;
  /** The last `bytes` of a file (transcripts grow large); falls back to readFile when absent. */
  readTail?(path: string, bytes: number): string;
  /**
   * Rows of a read-only query of a SQLite database, undefined when the file does not exist; throws
   * when it cannot be read. Absent here: the reader opens the file on this machine itself. A host's
   * IO answers it from a copy of the file read in its evidence round.
   */
  querySqlite?(file: string, sql: string, params: readonly (string | number)[]): unknown[] | undefined;
}

export interface LiveEvidenceInput {
  home: string;
  io: EvidenceIO;
  /** Live processes by pid, to drop stale files left by a dead or reused pid. */
  alive: (pid: number, startTime?: string) => boolean;
  locks: { pid: number; devMajor: number; devMinor: number; inode: number; mode: string }[];
  /**
   * The live processes of this runtime that use this home, for a runtime whose live state names no
   * process (OpenCode: which process created a session is proven from start times and folders).
   */
  processes?: LiveProcess[];
}

/** A live agent process as the roster found it. */
export interface LiveProcess {
  pid: number;
  /** The process's start (clock ticks since boot on Linux; opaque elsewhere). */
  startTime: string;
  argv: string[];
  cwd?: string;
}

/** What the screen says, per runtime. Every field is optional: no signature seen is no claim. */
export type NeedsInputReason = 'permission' | 'question' | 'usage_limit' | 'login' | 'trust_dialog' | 'error';

export interface ScreenReading {
  activity?: 'working' | 'idle';
  needsInput?: NeedsInputReason;
  /** Text a person typed into the agent's input box and has not sent (dim suggestions are not). */
  draft?: string;
  /** The signature lines that decided it, for the evidence shown to a person. */
  matched?: string[];
}

/** A pane's screen: plain lines, and the same lines with SGR styling (to tell dim text apart). */
export interface ScreenText {
  plain: string[];
  styled: string[];
  /** The pane's title as the program set it (OSC 0/2): Gemini CLI draws its state there. */
  title?: string;
}

/** What a runtime's own step before launch sees (and what doctor asks it, with write off). */
export interface SeatPrepInput {
  seat: string;
  /** The seat's own env from the rig spec: the only config Rigdesk may write is one it names. */
  seatEnv: Record<string, string>;
  /** What the agent will see: the engine's env (identity scrubbed) under the seat's. */
  env: Record<string, string | undefined>;
  /** The seat's folder as the CLI sees it (its real path, when it exists). */
  cwd: string;
  /** The runtime's config home for this seat, or the person's default. */
  home: string;
  userHome: string;
  /** Where the seat's config files are read and written: this machine's by default, or its host's. */
  io?: SettingsIO;
  /**
   * Where a program the runtime needs is on the PATH the seat runs with, links resolved (omo: the
   * package its plugin comes from), as its host found it; absent, it is looked up on this machine.
   */
  programPath?: (program: string) => string | undefined;
}

export type ServiceRole = 'daemon' | 'daemon_helper';

/** What the last event an activity hook wrote says about the seat (Claude's hooks). */
export interface HookReading {
  activity?: 'working' | 'idle';
  needsInput?: 'permission' | 'question';
  sessionId?: string;
  event?: string;
}

/** A runtime's live-state file's word on one running process (Claude: idle, busy, waiting). */
export interface LiveStatus {
  status: string;
  waitingFor?: string;
  sessionId?: string;
}

export interface RuntimeAdapter {
  id: string;
  displayName: string;
  /**
   * Whether it keeps conversations of its own (every agent CLI): what custody guards, restore
   * resumes and fork copies. A plain program (`shell`) keeps none: its process tree is its activity.
   */
  conversations: boolean;
  /** Program looked up on the seat's PATH; undefined for `shell`, whose program is the spec's command. */
  binary?: string;
  /** The command a new rig's seat of it runs, for a runtime with no program of its own (`shell`: bash). */
  defaultCommand?: string;
  /** How a person installs it, said where it is missing (doctor, a launch, the New rig form). */
  installHint?: string;
  /**
   * Programs besides `binary` a seat of this runtime needs on its PATH (omo: its own CLI, whose
   * package holds the plugin its OpenCode loads; omp: bun, which runs its CLI); doctor, `hosts
   * check` and the window say so when one is missing.
   */
  needs?: readonly string[];
  /** The variable that isolates its config, and its default under a user's home. */
  homeEnvVar?: string;
  defaultHome?(userHome: string): string;
  canResume: boolean;
  /** The conversation id can be chosen before launch (Claude's --session-id). */
  choosesIdUpFront: boolean;
  freshArgv(ctx: LaunchContext): { argv: string[]; conversationId?: string };
  resumeArgv(ctx: LaunchContext, conversationId: string): string[];
  /**
   * Flags every launch of this runtime (fresh, resume, fork) puts before the seat's own args so
   * the launched process writes its conversation alone (Codex: `--no-daemon`).
   */
  writerArgs?(args: readonly string[]): string[];
  /** Does this process run this runtime (by its comm and argv, never by a name a user chose)? */
  matches(p: ProcInfo): boolean;
  /** The conversation this argv makes the process write, if the argv says. */
  conversationFromArgv(argv: string[]): string | undefined;
  /**
   * A background service of the runtime rather than an agent a person drives (Codex's app-server
   * daemon and its pid-update loop): it serves its whole config home, is never part of the TUI
   * that started it, and belongs to no pane, whatever TMUX_PANE it inherited.
   */
  serviceRole?(p: ProcInfo): ServiceRole | undefined;
  /**
   * The conversation a process was launched on, from the argv it was started with (which Rigdesk's
   * pane wrapper keeps), for a runtime that rewrites its own command line (Pi). May read the file
   * the argv names.
   */
  conversationFromLaunchArgv?(argv: string[], io: EvidenceIO): string | undefined;
  /** Live-state files and writer locks under one config home. Throws when unreadable. */
  liveClaims?(input: LiveEvidenceInput): ConversationClaim[];
  /**
   * Whether this home has lock files worth matching against /proc/locks. Reading /proc/locks
   * costs several ms even when it is empty, so the roster reads it only when someone needs it.
   */
  needsLocks?(home: string, io: EvidenceIO): boolean;
  /** Runtime status from its own live-state file, when it keeps one (Claude: idle/busy/waiting). */
  transcriptPath?(home: string, cwd: string, conversationId: string, io: EvidenceIO): string | undefined;
  /**
   * The agent is part way through taking up the conversation this transcript holds, and ending it
   * now would leave the conversation unresumable (Gemini, see ./gemini-resume.ts): a stop waits.
   */
  takingUp?(transcript: string): boolean;
  /** Turn state from the transcript's own events (Codex task_started/task_complete). */
  transcriptActivity?(home: string, conversationId: string, io: EvidenceIO): 'working' | 'idle' | undefined;
  /** Reads its own screen: working, idle, waiting for the person, a draft in the input box. */
  readScreen?(screen: ScreenText): ScreenReading;
  /** Its permission prompt as the person sees it, when one is on screen (see prompts/screens.ts). */
  readPrompt?(screen: ScreenText): PromptRead | undefined;
  /** The keys that answer its permission prompt; without them Rigdesk never answers one. */
  promptKeys?: { approve: readonly string[]; deny: readonly string[] };
  /**
   * How its screen marks the person's messages and the agent's reply lines, so the first lines of
   * the last reply can be shown beside a reply box (the Decisions view's ended turns).
   */
  replyMarks?: ReplyMarks;
  /**
   * Variables Rigdesk adds to the seat's pane so the CLI keeps to what Rigdesk owns (OpenCode's
   * TMPDIR); never one the seat's spec sets. `seatDir` is Rigdesk's own folder for the seat.
   */
  seatEnv?(input: {
    seatDir: string;
    env: Readonly<Record<string, string>>;
    /** Makes a folder where the seat runs (this machine's by default, its host's for a remote seat). */
    ensureDir?: (path: string) => void;
  }): Record<string, string>;
  /** Milliseconds to wait between pasted text and Enter (Codex drops an Enter sent too soon). */
  submitDelayMs?: number;
  /**
   * How long after its launch the program may take to be ready (DEFAULT_START_MS when absent):
   * until evidence says it is, within this, the seat is `starting` (activity/decide.ts).
   */
  startMs?: number;
  /**
   * A live process of this runtime whose conversation nothing names may be writing any
   * conversation in its folder and config home (Qwen started without an id, `-c`, or resumed by
   * title; Pi, which renames itself; OpenCode, which never puts a fresh session's id on its
   * command line): custody refuses rather than guess (CONVERSATION_OWNER_UNKNOWN).
   */
  doubtsUnnamed?: boolean;
  /**
   * Makes the seat's own config safe under orchestration before it launches (Gemini: session
   * cleanup off; Qwen: its proxy setting), or refuses with RUNTIME_CONFIG_UNSAFE and why. With
   * `write` off it only says what launch would do: doctor's check, under the name it returns.
   */
  prepareSeat?(input: SeatPrepInput, opts: { write: boolean }): Result<{ detail: string }>;
  /** The name of that check in doctor, for a seat. */
  prepareCheckName?(seat: string): string;
  /** The runtime's own words for "that conversation does not exist". */
  missingConversation: RegExp;
  /**
   * Installs Rigdesk's activity hooks into the seat's own isolated config home (the folder
   * `homeEnvVar` names in the seat's env; never a person's default): Claude's hooks, Codex's
   * notify. Each event is written to the seat's file in `hooksDir`; on another host (`io` over
   * that host) the hook also writes the seat's name into the fifo `notify`.
   */
  installHooks?(home: string, hooksDir: string, seat: string, io?: SettingsIO, notify?: string): void;
  /** What its hook file's last event says, where that is activity evidence (Claude; Codex's notify is a trigger only). */
  readHook?(raw: string): HookReading;
  /** What its live-state file says of one running process (Claude's `sessions/<pid>.json`). */
  liveStatus?(home: string, pid: number, io: Pick<EvidenceIO, 'readFile'>): LiveStatus | undefined;
  /**
   * The screen shows a mark the CLI draws only while no turn runs (Claude's `? for shortcuts`
   * footer): it overrules a stale "working" from a live-state file or a hook, and a hook's
   * permission the screen no longer shows.
   */
  idleMarked?(reading: ScreenReading): boolean;
  /**
   * The argv of a fork: a new conversation that starts as a copy of `from`, which the fork reads
   * and never writes (Claude: `--resume X --fork-session --session-id NEW`; Codex: `fork X`), and
   * the new conversation's id when it is chosen up front. Absent: Rigdesk does not fork it.
   */
  forkArgv?(ctx: LaunchContext, from: string): { argv: string[]; conversationId?: string };
  /** Why it is not forked, in the words a person needs (after "which Rigdesk cannot fork"). */
  whyNoFork?: string;
  /** Where it records a conversation's tokens and how to fold them (usage/watch.ts reads it). */
  usage?: UsageReader;
  /**
   * A check doctor makes of each config home this machine's seats of it use, given those seats
   * and a reader of small files there (Codex: whether its background daemon is on).
   */
  homeCheck?(home: string, seats: readonly string[], readText: (path: string) => string | undefined): DoctorCheck;
}

export function basename(p: string): string {
  const i = p.lastIndexOf('/');
  return i >= 0 ? p.slice(i + 1) : p;
}

/** Value of `--flag X` or `--flag=X` in argv. */
export function flagValue(argv: string[], ...flags: string[]): string | undefined {
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i]!;
    for (const f of flags) {
      if (a === f && i + 1 < argv.length) return argv[i + 1];
      if (a.startsWith(`${f}=`)) return a.slice(f.length + 1);
    }
  }
  return undefined;
}

export const UUID_RE = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

const SGR_RE = /\x1b\[[0-9;:]*m/g;
export function stripSgr(s: string): string {
  return s.replace(SGR_RE, '');
}

/**
 * True when the first visible characters of `styled` are drawn dim or grey (a placeholder or
 * suggestion). Grey is the 256-colour ramp's darker part (232-250) or 8/7/90/37: 231 is the colour
 * cube's pure white, which is how Gemini draws a person's typed text, so it is not grey.
 */
export function startsDim(styled: string, after: string): boolean {
  const i = styled.indexOf(after);
  if (i < 0) return false;
  let active = '';
  const rest = styled.slice(i + after.length);
  const m = /^((?:\x1b\[[0-9;:]*m)*)/.exec(rest);
  active = m?.[1] ?? '';
  return /\x1b\[(?:[0-9;]*;)?(2|90|37|38;5;(23[2-9]|24[0-9]|250|8|7)|38;2;1[0-5][0-9];1[0-5][0-9];1[0-5][0-9])(;[0-9;]*)?m/.test(
    active,
  );
}

/** Index of the last line matching `re`, or -1. */
export function lastIndexMatching(lines: readonly string[], re: RegExp): number {
  for (let i = lines.length - 1; i >= 0; i--) if (re.test(lines[i]!)) return i;
  return -1;
}

/** A permission prompt read from a screen: what to show, what is asked, whether approve would approve. */
export interface PromptRead {
  /** The prompt block, from the tool call it asks about to its footer. */
  lines: string[];
  /** The asked-about lines (not the selection marker): what the fingerprint covers. */
  asked: string[];
  /** False when approve's key would pick something other than "yes" (the selection was moved). */
  approveReady: boolean;
  why?: string;
  /** The prompt's numbered options as on screen, with the key that picks each one directly. */
  options?: PromptOption[];
  /** A question with options (Claude's AskUserQuestion) rather than a permission prompt. */
  kind?: 'permission' | 'question';
  /**
   * The keys that open a question's answer of one's own where no single option key does (Codex:
   * move to `None of the above`, then Tab to its notes); the text and Enter follow.
   */
  otherKeys?: string[];
}

export interface ReplyMarks {
  /** A message the person sent, as the transcript on screen shows it (also the input box with a draft). */
  user: RegExp;
  /** The first line of each block of the agent's reply. */
  reply: RegExp;
}

/** One numbered option of a prompt: `2. Yes, and don't ask again … (p)` picked by `p`. */
export interface PromptOption {
  n: number;
  label: string;
  /** The key that picks it at once: its own shortcut when the CLI shows one, else its number. */
  key: string;
}

/**
 * The numbered options between two lines of a prompt (`❯ 1. Yes`, `  2. No (esc)`): each with its
 * shortcut when the line ends in one (`(y)`, `(esc)`), else its number as the key.
 */
export function readOptions(lines: readonly string[]): PromptOption[] {
  const out: PromptOption[] = [];
  for (const l of lines) {
    // A narrow pane draws `2.Yes, and …` with no space after the number.
    const m = /^\s*(?:[❯›>]\s*)?(\d{1,2})\.\s*([^\d\s].*?)\s*$/.exec(l);
    if (!m) continue;
    const short = /\s\((esc|[a-z])\)$/i.exec(m[2]!);
    const label = short ? m[2]!.slice(0, short.index).trim() : m[2]!;
    const key = short ? (short[1]!.toLowerCase() === 'esc' ? 'Escape' : short[1]!) : m[1]!;
    out.push({ n: Number(m[1]), label, key });
  }
  return out;
}

export const tidyLines = (lines: readonly string[]): string[] => lines.map((l) => l.trimEnd());

/** Index of the first line at or after `from` matching `re`, or -1. */
export function firstIndexFrom(lines: readonly string[], re: RegExp, from: number): number {
  for (let i = from; i < lines.length; i++) if (re.test(lines[i]!)) return i;
  return -1;
}

/**
 * Launch argv of a CLI that takes the new conversation's id up front (`--session-id <id>`) and
 * resumes one by `--resume <id>`: Claude Code, Gemini CLI and Qwen Code spell it the same way.
 */
export const SESSION_ID_ARGV: Pick<RuntimeAdapter, 'canResume' | 'choosesIdUpFront' | 'freshArgv' | 'resumeArgv'> = {
  canResume: true,
  choosesIdUpFront: true,
  freshArgv(ctx) {
    const id = ctx.newId();
    return { argv: [ctx.binary, '--session-id', id, ...ctx.args], conversationId: id };
  },
  resumeArgv(ctx, id) {
    return [ctx.binary, '--resume', id, ...ctx.args];
  },
};
