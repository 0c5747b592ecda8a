import { liveFs } from '../deps';
import { homedir } from 'node:os';
import { join } from 'node:path';
import { basename, flagValue, type ConversationClaim, type LaunchContext, type RuntimeAdapter } from './types';
import { findOmpSession, isOmpId, ompResumeCandidates, ompTempRoot, writeOmpSession } from './omp-sessions';
import { prepareOmpSetup } from './omp-settings';
import { readOmpPrompt, readOmpScreen } from './screens/omp';
import { declaredIn } from './usage/records';
import { ompDeclaredWindow, ompModelsFile, piSink } from './usage/pi';

/**
 * omp, oh-my-pi (observed: @oh-my-pi/pi-coding-agent 18.2.3 on bun 1.4.5; facts pinned by
 * test/agents/omp-real.test.ts). A fork of Pi: the same session JSONL (see omp-sessions.ts), no
 * `--session-id`, no lock, no file held open. Unlike Pi it leaves its command line as it was
 * started (`bun …/omp --resume <id>`; comm `omp` once it has loaded, `bun` before), so argv names
 * the conversation whenever the person or Rigdesk passed one.
 *
 * omp accepts a second writer without a word, from another folder too (`--resume` looks in every
 * folder of the agent dir), and the transcript branches. Its `~/.omp/run/daemons/<hash>/clients/`
 * files name live interactive processes but not their session, which the process table already
 * says. So custody is argv (`--resume`, `-r`, `--session`, by full id; an id prefix or a path is
 * resolved as omp resolves it) and doubt: an omp in the seat's folder and agent dir whose argv
 * names nothing (`omp`, `omp -c`, the picker) may be writing anything there.
 *
 * A fresh seat is bound the way Pi's is, by a session file Rigdesk writes before launch: the title
 * slot and a header naming an id Rigdesk chose, in the folder omp uses for the cwd, then
 * `omp --resume <id>`. omp opens it as that session (and never shows its setup wizard on a
 * resume), so the id is on the command line from the first moment. For a seat on another host the
 * file is made there (ctx.files), in the folder named from that host's HOME and temp root.
 */
export const OMP_SIGNATURES = {
  /** `omp --resume X` and `omp -p --resume X` print this and exit 1 when X names no session. */
  missingConversation: /Error: Session "([^"]+)" not found\./,
} as const;

/** Flags whose value names the session the process opens (`--fork` copies one instead). */
const RESUME_FLAGS = ['--resume', '-r', '--session'] as const;

/** The script bun runs for omp: the npm bin link, or the package's own entry point. */
const OMP_SCRIPT = /(?:^|\/)omp$|\/@oh-my-pi\/pi-coding-agent\/dist\/cli\.js$/;

/** omp's own arguments (after `bun <script>`, or after the program itself), or undefined. */
export function ompArgs(argv: readonly string[]): string[] | undefined {
  const a0 = basename(argv[0] ?? '');
  if (a0 === 'omp') return argv.slice(1);
  if (a0 !== 'bun' && a0 !== 'node') return undefined;
  const i = argv.findIndex((a, k) => k > 0 && !a.startsWith('-'));
  return i > 0 && OMP_SCRIPT.test(argv[i]!) ? argv.slice(i + 1) : undefined;
}

/** The raw value of `--resume`/`-r`/`--session` (an id, a prefix or a path), if argv has one. */
export function ompResumeArg(args: readonly string[]): string | undefined {
  const end = args.indexOf('--');
  const v = flagValue(end < 0 ? [...args] : args.slice(0, end), ...RESUME_FLAGS);
  return v && !v.startsWith('-') ? v : undefined;
}

/**
 * Where Rigdesk may write a fresh seat's session file so omp finds it: the seat's own agent dir,
 * or the default one when nothing moves omp's files elsewhere (a profile, or XDG dirs omp was
 * migrated to, would). Undefined: launch plain `omp`, conversation unknown until it is named.
 * On another host (`ctx.files`) only a seat's own agent dir is known, and HOME must be the host's.
 */
function freshSessionHome(ctx: LaunchContext): { home: string; userHome: string } | undefined {
  const env = ctx.env;
  if (!ctx.home || !env) return undefined;
  if (env.OMP_PROFILE?.trim() || env.PI_PROFILE?.trim()) return undefined;
  const userHome = env.HOME || (ctx.files ? undefined : homedir());
  if (!userHome) return undefined;
  if (
    !env.PI_CODING_AGENT_DIR &&
    (ctx.files || (env.XDG_DATA_HOME && liveFs.existsSync(join(env.XDG_DATA_HOME, 'omp'))))
  )
    return undefined;
  return { home: ctx.home, userHome };
}

export const omp: RuntimeAdapter = {
  id: 'omp',
  displayName: 'omp (oh-my-pi)',
  conversations: true,
  installHint: 'npm install -g bun @oh-my-pi/pi-coding-agent',
  whyNoFork: " yet (`omp --fork` gives the copy an id of omp's choosing, which nothing names on its command line)",
  // omp writes Pi's session records; its models file is YAML.
  usage: { sink: piSink, declaredWindow: declaredIn(ompModelsFile, ompDeclaredWindow) },
  binary: 'omp',
  // omp's CLI is a bun script (`#!/usr/bin/env bun`): without bun on the PATH it does not start.
  needs: ['bun'],
  homeEnvVar: 'PI_CODING_AGENT_DIR',
  defaultHome: (userHome) => join(userHome, '.omp', 'agent'),
  doubtsUnnamed: true,
  canResume: true,
  choosesIdUpFront: true,
  freshArgv(ctx) {
    const at = freshSessionHome(ctx);
    if (!at) return { argv: [ctx.binary, ...ctx.args] };
    const id = ctx.newId();
    try {
      // HOME and the temp root are resolved where the seat runs (ctx.files), as omp resolves them.
      writeOmpSession({
        home: at.home,
        cwd: ctx.cwd,
        id,
        userHome: at.userHome,
        tmp: ompTempRoot(ctx.env ?? {}),
        now: new Date(),
        ...(ctx.files ? { files: ctx.files } : {}),
      });
    } catch {
      return { argv: [ctx.binary, ...ctx.args] };
    }
    return { argv: [ctx.binary, '--resume', id, ...ctx.args], conversationId: id };
  },
  resumeArgv(ctx, id) {
    return [ctx.binary, '--resume', id, ...ctx.args];
  },
  matches(p) {
    // bun renames the process `omp` once omp has loaded; until then it is `bun …/omp …`.
    if (p.comm === 'omp') return true;
    return ompArgs(p.argv) !== undefined;
  },
  conversationFromArgv(argv) {
    const args = ompArgs(argv);
    const v = args && ompResumeArg(args);
    return v && isOmpId(v) ? v.toLowerCase() : undefined;
  },
  liveClaims({ home, io, processes }): ConversationClaim[] {
    // A prefix or a path on the command line, resolved as omp resolves it; a full id is argv's.
    const claims: ConversationClaim[] = [];
    for (const p of processes ?? []) {
      const args = ompArgs(p.argv);
      const v = args && ompResumeArg(args);
      if (!v || isOmpId(v)) continue;
      for (const id of ompResumeCandidates(home, v, p.cwd, io))
        claims.push({
          runtime: 'omp',
          conversationId: id,
          pid: p.pid,
          startTime: p.startTime,
          source: 'argv',
          home,
          detail: `omp --resume ${v} opens it`,
        });
    }
    return claims;
  },
  transcriptPath(home, _cwd, id, io) {
    return findOmpSession(home, id, io);
  },
  readScreen: readOmpScreen,
  readPrompt: ({ plain }) => readOmpPrompt(plain),
  // `❯ Approve` is selected when the box opens: Enter approves (readPrompt checks it still is);
  // Escape ("esc cancel") denies the call and the turn goes on.
  promptKeys: { approve: ['Enter'], deny: ['Escape'] },
  prepareCheckName: (seat) => `omp setup (${seat})`,
  prepareSeat(input, { write }) {
    const r = prepareOmpSetup({ seatEnv: input.seatEnv, dryRun: !write, ...(input.io ? { io: input.io } : {}) });
    return r.ok ? { ok: true, detail: r.detail } : r;
  },
  missingConversation: OMP_SIGNATURES.missingConversation,
};
