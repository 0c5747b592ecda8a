import { liveFs } from '../deps';
import { dirname, join } from 'node:path';
import {
  basename,
  flagValue,
  type EvidenceIO,
  type LaunchContext,
  type LaunchFiles,
  type RuntimeAdapter,
} from './types';
import { readPiScreen } from './screens/pi';
import { declaredIn } from './usage/records';
import { piDeclaredWindow, piModelsFile, piSink } from './usage/pi';

/**
 * Pi coding agent (observed: 0.73.1). Pi rewrites its own command line (`process.title = "pi"`),
 * holds no lock and keeps no file open, so a live Pi's conversation is known only from how
 * Rigdesk launched it; a Pi in the same folder and agent dir whose conversation is unknown is a
 * possible owner, and that doubt is the answer (custody refuses).
 */

export const PI_SIGNATURES = {
  missingConversation: /No session found matching '([^']+)'/,
  working: /Working\.\.\./,
  usageLimit: /Error: 429|Retry failed after \d+ attempts: 429/,
} as const;

/**
 * Where Pi keeps a conversation (0.73.1, `getDefaultSessionDir` and `SessionManager.newSession`):
 * `$PI_CODING_AGENT_DIR/sessions/--<cwd minus its leading "/" or "\", then "/", "\" and ":" → "-">--/`
 * `<ISO timestamp with ":" and "." → "-">_<id>.jsonl`, whose first line is the session header
 * `{"type":"session","version":3,"id":…,"timestamp":…,"cwd":…}`. Pi resolves `--session <id>` by
 * the header ids of the files in the cwd's folder, and opens `--session <path>` as given.
 */
export const PI_LAYOUT = {
  sessionsDir: 'sessions',
  folderFor: (cwd: string): string => `--${cwd.replace(/^[/\\]/, '').replace(/[/\\:]/g, '-')}--`,
  fileFor: (isoTimestamp: string, id: string): string => `${isoTimestamp.replace(/[:.]/g, '-')}_${id}.jsonl`,
  idFromFile: (name: string): string | undefined => /_([^_/]+)\.jsonl$/.exec(name)?.[1],
  headerVersion: 3,
  /** The script node runs for Pi: the npm bin link, or the package's own entry point. */
  nodeScript: /(?:^|\/)pi$|\/pi-coding-agent\/dist\/cli\.js$/,
};

/** The folder Pi writes a cwd's sessions to (the cwd as Pi sees it: its real path). */
export function piSessionDir(home: string, cwd: string): string {
  return join(home, PI_LAYOUT.sessionsDir, PI_LAYOUT.folderFor(cwd));
}

export function findPiSession(home: string, cwd: string, id: string, io: EvidenceIO): string | undefined {
  const dir = piSessionDir(home, cwd);
  const hit = io.listDir(dir).find((f) => PI_LAYOUT.idFromFile(f) === id);
  return hit ? join(dir, hit) : undefined;
}

/** The id in a Pi session file's header line, if the text starts with one. */
export function piHeaderId(text: string): string | undefined {
  try {
    const head = JSON.parse(text.split('\n', 1)[0]!) as { type?: unknown; id?: unknown };
    return head.type === 'session' && typeof head.id === 'string' && head.id !== '' ? head.id : undefined;
  } catch {
    return undefined;
  }
}

/**
 * The conversation a Pi was launched on, from the argv it was started with (a pane wrapper's, or
 * a Pi caught before it renamed itself): `--session <id>`, or `--session <absolute file>` whose
 * header names the id (how Rigdesk starts a fresh Pi). Not proof of what it writes *now*: Pi's
 * `/new` and `/resume` switch conversations inside the same process, and nothing shows it.
 */
export function piConversationOfLaunch(argv: readonly string[], io: Pick<EvidenceIO, 'readFile'>): string | undefined {
  const v = flagValue([...argv], '--session');
  if (!v) return undefined;
  if (!v.includes('/')) return v;
  if (!v.startsWith('/')) return undefined;
  try {
    return piHeaderId(io.readFile(v));
  } catch {
    return undefined;
  }
}

function realOrSame(p: string): string {
  try {
    return liveFs.realpathSync(p);
  } catch {
    return p;
  }
}

/**
 * Pi cannot be told an id, but it opens an existing session file as given and keeps the id in its
 * header. So a fresh launch writes a header-only file, named as Pi itself would name it, in the
 * cwd's own session folder, and starts `pi --session <that file>`: the conversation id is then
 * known from the start, `pi --session <id>` finds it later, and Pi's own /session shows the same id.
 * (Pi rewrites the header once more when it first saves, so the file starts with two identical
 * header lines; Pi reads such a file as one session.) Without a home, or when the folder cannot
 * be written, the launch is a plain `pi` whose conversation stays unknown (and custody doubts it).
 */
const LOCAL_FILES: LaunchFiles = {
  realPath: realOrSame,
  createNew(path, text) {
    liveFs.mkdirSync(dirname(path), { recursive: true });
    liveFs.writeFileSync(path, text, { flag: 'wx' });
  },
};

function prepareFreshSession(ctx: LaunchContext): { path: string; id: string } | undefined {
  if (!ctx.home) return undefined;
  const files = ctx.files ?? LOCAL_FILES;
  const cwd = files.realPath(ctx.cwd);
  const id = ctx.newId();
  const at = new Date().toISOString();
  const path = join(piSessionDir(ctx.home, cwd), PI_LAYOUT.fileFor(at, id));
  try {
    files.createNew(
      path,
      `${JSON.stringify({ type: 'session', version: PI_LAYOUT.headerVersion, id, timestamp: at, cwd })}\n`,
    );
  } catch {
    return undefined;
  }
  return { path, id };
}

export const pi: RuntimeAdapter = {
  id: 'pi',
  displayName: 'Pi',
  conversations: true,
  installHint: 'npm install -g @mariozechner/pi-coding-agent',
  whyNoFork: ' yet (its live processes cannot prove their session, and `pi --fork` is unchecked)',
  usage: { sink: piSink, declaredWindow: declaredIn(piModelsFile, piDeclaredWindow) },
  binary: 'pi',
  homeEnvVar: 'PI_CODING_AGENT_DIR',
  doubtsUnnamed: true,
  defaultHome: (userHome) => join(userHome, '.pi', 'agent'),
  canResume: true,
  choosesIdUpFront: true,
  freshArgv(ctx) {
    const s = prepareFreshSession(ctx);
    if (!s) return { argv: [ctx.binary, ...ctx.args] };
    return { argv: [ctx.binary, '--session', s.path, ...ctx.args], conversationId: s.id };
  },
  resumeArgv(ctx, id) {
    return [ctx.binary, '--session', id, ...ctx.args];
  },
  matches(p) {
    const first = (p.argv[0] ?? '').trim().split(/\s+/)[0] ?? '';
    if (p.comm === 'pi' || basename(first) === 'pi') return true;
    // Until its modules have loaded (seconds, on a busy machine) Pi has not renamed itself yet:
    // it is `node …/bin/pi …` (or `node …/pi-coding-agent/dist/cli.js …`), arguments readable.
    return p.comm === 'node' && PI_LAYOUT.nodeScript.test(p.argv[1] ?? '');
  },
  conversationFromArgv(argv) {
    // Only when the argv was not rewritten (a shim, or an older Pi). A path names a file, not an
    // id: the id inside a file a person named need not be the one in its name.
    const v = flagValue(argv, '--session');
    if (!v || v.includes('/')) return undefined;
    return v;
  },
  transcriptPath(home, cwd, id, io) {
    return findPiSession(home, cwd, id, io);
  },
  conversationFromLaunchArgv: (argv, io) => piConversationOfLaunch(argv, io),
  readScreen: readPiScreen,
  missingConversation: PI_SIGNATURES.missingConversation,
};
