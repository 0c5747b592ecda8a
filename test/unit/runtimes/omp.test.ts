/**
 * omp's adapter without the CLI: argv (as /proc showed the real 18.2.3 processes), the session
 * folder rule and files, screens (lines as observed at 200 columns), the setup step and custody
 * from a process table. The real CLI's facts are pinned by test/agents/omp-real.test.ts.
 */
import { mkdirSync, mkdtempSync, readFileSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { AGENT_RUNTIMES, omp } from '../../../src/main/engine/runtimes';
import { ompArgs } from '../../../src/main/engine/runtimes/omp';
import {
  findOmpSession,
  ompFolderFor,
  ompHeaderId,
  ompResumeCandidates,
  ompTitleSlot,
  writeOmpSession,
} from '../../../src/main/engine/runtimes/omp-sessions';
import { prepareOmpSetup } from '../../../src/main/engine/runtimes/omp-settings';
import { readOmpPrompt, readOmpScreen } from '../../../src/main/engine/runtimes/screens/omp';
import { liveEvidenceIO } from '../../../src/main/engine/evidence-io';
import { buildRoster } from '../../../src/main/engine/roster/build';
import { checkConversationFree } from '../../../src/main/engine/custody/guard';
import type { ProcInfo, ProcReader } from '../../../src/main/engine/proc/types';
import { memoryIO, proc } from './helpers';

const X = '01a23c00-0000-7000-8000-000000000001';
const Y = '01a23d11-0000-7000-8000-000000000002';
const BIN = '/p/node_modules/.bin/omp';
const STATUS = (brand: string) =>
  ` ${brand} > ⬢ Fake Model > 🗑 omp-probe/w1/work ▶──────4%${'─'.repeat(100)}╎${'─'.repeat(15)}┃${'─'.repeat(22)}128K─`;
const screen = (plain: string[], title?: string) => ({ plain, styled: plain, ...(title ? { title } : {}) });

const dirs: string[] = [];
const tempDir = () => {
  const d = mkdtempSync(join(tmpdir(), 'rd-omp-unit-'));
  dirs.push(d);
  return d;
};
afterEach(() => {
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});

describe('omp argv', () => {
  it('is `bun <script> …` until it has loaded and comm `omp` after, with its arguments kept', () => {
    const early = proc('bun.exe', ['bun', BIN, '--resume', X]);
    const late = proc('omp', ['bun', BIN, '--resume', X]);
    for (const p of [early, late]) {
      expect(AGENT_RUNTIMES.filter((r) => r.matches(p)).map((r) => r.id)).toEqual(['omp']);
      expect(omp.conversationFromArgv(p.argv)).toBe(X);
    }
    expect(ompArgs(['bun', '/x/@oh-my-pi/pi-coding-agent/dist/cli.js', '-p', 'hi'])).toEqual(['-p', 'hi']);
    expect(omp.matches(proc('bun', ['bun', '/p/server.ts']))).toBe(false);
    expect(omp.matches(proc('node', ['node', '/p/node_modules/.bin/pi']))).toBe(false);
  });

  it('names a conversation by --resume, -r, --session (full id, as given or with =); a picker, -c, a fork or a prompt word does not', () => {
    const named = (...args: string[]) => omp.conversationFromArgv(['bun', BIN, ...args]);
    expect(named('--resume', X)).toBe(X);
    expect(named('-p', '-r', X, 'hello')).toBe(X);
    expect(named('--session', X)).toBe(X);
    expect(named(`--resume=${X}`)).toBe(X);
    expect(named('--resume')).toBeUndefined();
    expect(named('--resume', '-p')).toBeUndefined();
    expect(named('-c')).toBeUndefined();
    expect(named('--fork', X)).toBeUndefined();
    expect(named('-p', '--', '--resume', X)).toBeUndefined();
    expect(named('--resume', X.slice(0, 8))).toBeUndefined(); // a prefix: liveClaims resolves it
  });

  it('launches on an id it chose, in a session file written where omp looks, and resumes with --resume', () => {
    const root = tempDir();
    const home = join(root, 'agent');
    const cwd = join(root, 'work');
    mkdirSync(cwd);
    const ctx = {
      binary: '/b/omp',
      cwd,
      args: ['--no-lsp'],
      home,
      newId: () => X,
      env: { HOME: join(root, 'home'), TMPDIR: join(root, 'tmp'), PI_CODING_AGENT_DIR: home },
    };
    expect(omp.freshArgv(ctx)).toEqual({ argv: ['/b/omp', '--resume', X, '--no-lsp'], conversationId: X });
    const file = findOmpSession(home, X, liveEvidenceIO)!;
    expect(file).toMatch(
      new RegExp(`/sessions/--.*-work--/\\d{4}-\\d\\d-\\d\\dT\\d\\d-\\d\\d-\\d\\d-\\d{3}Z_${X}\\.jsonl$`),
    );
    const text = readFileSync(file, 'utf8');
    expect(Buffer.byteLength(text.split('\n')[0]!) + 1).toBe(256);
    expect(ompHeaderId(text)).toBe(X);
    expect(omp.resumeArgv(ctx, Y)).toEqual(['/b/omp', '--resume', Y, '--no-lsp']);
    // No env (a caller that cannot say where omp's files go), or a profile: plain omp, nothing written.
    expect(omp.freshArgv({ ...ctx, env: undefined, newId: () => Y })).toEqual({ argv: ['/b/omp', '--no-lsp'] });
    expect(omp.freshArgv({ ...ctx, env: { ...ctx.env, OMP_PROFILE: 'work' }, newId: () => Y }).conversationId).toBe(
      undefined,
    );
    expect(findOmpSession(home, Y, liveEvidenceIO)).toBeUndefined();
  });

  it('knows its missing-session words, and whose they are', () => {
    const m = omp.missingConversation.exec(
      `Error: Session "${X}" not found.\nRun \`omp --resume\` without an argument to pick from recent sessions`,
    );
    expect(m?.[1]).toBe(X);
    expect(omp.missingConversation.test('Error: Session not found: ses_x')).toBe(false);
  });
});

describe("omp's fresh session on another host", () => {
  /** Launch files as a host's launch keeps them: real paths as the host gave them, writes recorded. */
  const hostFiles = (real: Record<string, string>) => {
    const writes: { path: string; text: string }[] = [];
    return {
      writes,
      realPath: (p: string) => real[p] ?? p,
      createNew: (path: string, text: string) => void writes.push({ path, text }),
    };
  };

  it("names the folder from the host's real HOME and temp root, makes nothing here, and needs the host's HOME", () => {
    const files = hostFiles({ '/h/work': '/data/u/work', '/home/u': '/data/u', '/tmp': '/tmp' });
    const ctx = {
      binary: '/opt/omp',
      cwd: '/h/work',
      args: [],
      home: '/data/u/.omp-seat',
      newId: () => X,
      env: { HOME: '/home/u', PI_CODING_AGENT_DIR: '/data/u/.omp-seat' },
      files,
    };
    expect(omp.freshArgv(ctx)).toEqual({ argv: ['/opt/omp', '--resume', X], conversationId: X });
    expect(files.writes).toHaveLength(1);
    // Under HOME as the host resolves it (a link there): `-work`, where omp itself will look.
    expect(files.writes[0]!.path).toMatch(new RegExp(`^/data/u/\\.omp-seat/sessions/-work/[^/]+_${X}\\.jsonl$`));
    expect(ompHeaderId(files.writes[0]!.text)).toBe(X);
    expect(JSON.parse(files.writes[0]!.text.split('\n')[1]!)).toMatchObject({ cwd: '/data/u/work' });
    // Without the host's answer for HOME the same cwd is not under it: the folder would differ.
    expect(ompFolderFor('/data/u/work', '/home/u', '/tmp', (p) => p)).toBe('--data-u-work--');
    expect(ompFolderFor('/data/u/work', '/home/u', '/tmp', (p) => (p === '/home/u' ? '/data/u' : p))).toBe('-work');
    // On a host, this machine's HOME means nothing, nor does a data dir it cannot see: plain omp.
    const bare = hostFiles({});
    expect(omp.freshArgv({ ...ctx, files: bare, env: { PI_CODING_AGENT_DIR: ctx.home } })).toEqual({
      argv: ['/opt/omp'],
    });
    expect(omp.freshArgv({ ...ctx, files: bare, env: { HOME: '/home/u', XDG_DATA_HOME: '/x' } })).toEqual({
      argv: ['/opt/omp'],
    });
    expect(bare.writes).toEqual([]);
  });
});

describe("omp's session folder and files", () => {
  it('names a cwd under HOME `-rel`, under the temp root `-tmp-rel`, elsewhere `--abs--`', () => {
    const root = tempDir();
    for (const d of ['home/src/app', 'tmp/scratch', 'elsewhere/w:x']) mkdirSync(join(root, d), { recursive: true });
    const h = join(root, 'home');
    const t = join(root, 'tmp');
    expect(ompFolderFor(join(h, 'src/app'), h, t)).toBe('-src-app');
    expect(ompFolderFor(h, h, t)).toBe('-');
    expect(ompFolderFor(join(t, 'scratch'), h, t)).toBe('-tmp-scratch');
    expect(ompFolderFor(t, h, t)).toBe('-tmp');
    expect(ompFolderFor('/srv/w:x/y', h, t)).toBe('--srv-w-x-y--');
  });

  it('a title slot is exactly 256 bytes, newline included', () => {
    expect(Buffer.byteLength(ompTitleSlot('2026-12-03T11:51:04.221Z'))).toBe(256);
    expect(JSON.parse(ompTitleSlot('2026-12-03T11:51:04.221Z'))).toMatchObject({ type: 'title', v: 1, title: '' });
  });

  it('resolves `--resume <prefix>` to every session whose id or file name starts with it, and a path to its header', () => {
    const root = tempDir();
    const home = join(root, 'agent');
    const a = writeOmpSession({ home, cwd: root, id: X, userHome: '/nowhere', tmp: '/nowhere', now: new Date(0) });
    writeOmpSession({ home, cwd: '/other', id: Y, userHome: '/nowhere', tmp: '/nowhere', now: new Date(1000) });
    expect(ompResumeCandidates(home, '01a23', undefined, liveEvidenceIO).sort()).toEqual([X, Y]);
    expect(ompResumeCandidates(home, Y.slice(0, 8), undefined, liveEvidenceIO)).toEqual([Y]);
    expect(ompResumeCandidates(home, '1970-01-01T00-00-00-000', undefined, liveEvidenceIO)).toEqual([X]);
    expect(ompResumeCandidates(home, 'ffff', undefined, liveEvidenceIO)).toEqual([]);
    expect(ompResumeCandidates(home, a, undefined, liveEvidenceIO)).toEqual([X]);
    expect(findOmpSession(home, Y, liveEvidenceIO)).toContain('/sessions/--other--/');
    // A file named for an id whose header was lost is not that session to omp (nor to the resolver).
    writeFileSync(a, '{"type":"message","id":"x"}\n');
    expect(ompResumeCandidates(home, a, undefined, liveEvidenceIO)).toEqual([]);
  });
});

describe("omp's screen", () => {
  it('idle: the status line with its brand and the empty editor under it', () => {
    const r = readOmpScreen(screen([' hello there', ' ACK hello there', STATUS('π'), '╰─', '', '']));
    expect(r).toMatchObject({ activity: 'idle', draft: '' });
    expect(r.needsInput).toBeUndefined();
  });

  it('working: a braille spinner and the turn timer in place of the brand', () => {
    const lines = [
      ' tick SLOW',
      ' ACK tick SLOW tick2',
      `  ⎋ Working…${' '.repeat(160)}ACK <user>`,
      STATUS('⠙ 2s'),
      '╰─',
    ];
    expect(readOmpScreen(screen(lines))).toMatchObject({ activity: 'working' });
    expect(readOmpScreen(screen([...lines.slice(0, 3), STATUS('⠋ 1m'), '╰─']))).toMatchObject({ activity: 'working' });
    // A spinner without a timer (or a timer without a spinner) is not omp's working brand.
    expect(readOmpScreen(screen([STATUS('⠙'), '╰─'])).activity).toBe('idle');
  });

  it("a draft: the editor's text after `╰─`, with its continuation lines", () => {
    const r = readOmpScreen(screen([STATUS('π'), '╰─ line one', '   line two', '   line three', '']));
    expect(r.draft).toBe('line one\nline two\nline three');
  });

  const BOX = [
    ' RUN: echo omp-tool-ok > omp-out.txt',
    `╭${'─'.repeat(60)}╮`,
    `│ $ echo omp-tool-ok > omp-out.txt${' '.repeat(27)}│`,
    `╰${'─'.repeat(60)}╯`,
    `  ⎋ Working…${' '.repeat(160)}ACK <user>`,
    `╭─ Allow tool: bash ${'─'.repeat(40)}╮`,
    `│${' '.repeat(60)}│`,
    `│ Command: echo omp-tool-ok > omp-out.txt${' '.repeat(20)}│`,
    `│${' '.repeat(60)}│`,
    `│  ❯ Approve${' '.repeat(49)}│`,
    `│    Deny${' '.repeat(52)}│`,
    `│${' '.repeat(60)}│`,
    `│ up/down navigate  enter select  esc cancel${' '.repeat(17)}│`,
    `│${' '.repeat(60)}│`,
    `╰${'─'.repeat(60)}╯`,
  ];

  it('a permission box needs input, and its prompt is the tool and the call, Approve selected', () => {
    expect(readOmpScreen(screen(BOX))).toMatchObject({ needsInput: 'permission' });
    const p = readOmpPrompt(BOX)!;
    expect(p.asked).toEqual(['Allow tool: bash', 'Command: echo omp-tool-ok > omp-out.txt']);
    expect(p.approveReady).toBe(true);
    expect(p.lines.at(-1)).toBe('up/down navigate  enter select  esc cancel');
    const moved = BOX.map((l) => l.replace('│  ❯ Approve', '│    Approve').replace('│    Deny  ', '│  ❯ Deny  '));
    expect(readOmpPrompt(moved)).toMatchObject({ approveReady: false, why: expect.stringContaining('Approve') });
    expect(omp.promptKeys).toEqual({ approve: ['Enter'], deny: ['Escape'] });
  });

  it('a 429 above the spinner (omp retries it) is a usage limit; one further up is history', () => {
    const limited = [
      ' LIMIT',
      ' Error: 429 Rate limit reached (fake server LIMIT) retry-after-ms=2000',
      '   Rate limit reached (fake server LIMIT) (type=rate_limit_exceeded param=rate_limit_exceeded)',
      `  ⎋ Working…${' '.repeat(160)}ACK <user>`,
      STATUS('⠸ 27s'),
      '╰─',
    ];
    expect(readOmpScreen(screen(limited))).toMatchObject({ activity: 'working', needsInput: 'usage_limit' });
    const later = [...limited.slice(0, 3), ' next', ' ACK next', ' more', STATUS('π'), '╰─'];
    expect(readOmpScreen(screen(later)).needsInput).toBeUndefined();
  });

  it('without composer or box, the pane title may hold a send (spinner, `!`) but never calls the seat idle', () => {
    expect(readOmpScreen(screen(['a picker'], 'π ⠙ work'))).toMatchObject({ activity: 'working' });
    expect(readOmpScreen(screen(['a picker'], 'π ! work'))).toMatchObject({ needsInput: 'question' });
    expect(readOmpScreen(screen(['a picker'], 'π > work'))).toEqual({});
    expect(readOmpScreen(screen([]))).toEqual({});
  });
});

describe("omp's first-run setup, in the seat's own agent dir", () => {
  it('writes setupVersion 2 into a seat-owned config.yml, keeping what is there; dry runs write nothing', () => {
    const dir = tempDir();
    const cfg = join(dir, 'config.yml');
    writeFileSync(cfg, '# mine\nmodelRoles: { default: fake/fake-model } # keep\nsetupVersion: 1\n');
    const seatEnv = { PI_CODING_AGENT_DIR: dir };
    expect(prepareOmpSetup({ seatEnv, dryRun: true })).toMatchObject({
      ok: true,
      detail: expect.stringContaining('launch writes'),
    });
    expect(readFileSync(cfg, 'utf8')).toContain('setupVersion: 1');
    expect(prepareOmpSetup({ seatEnv, dryRun: false })).toMatchObject({ ok: true, wrote: cfg });
    const text = readFileSync(cfg, 'utf8');
    expect(text).toContain('# mine');
    expect(text).toContain('# keep');
    expect(text).toMatch(/^setupVersion: 2$/m);
    expect(prepareOmpSetup({ seatEnv, dryRun: false })).toEqual({
      ok: true,
      detail: expect.stringContaining('settled'),
    });
  });

  it("creates the file in an empty agent dir; never writes the person's own; refuses a config that is not a map", () => {
    const dir = tempDir();
    expect(prepareOmpSetup({ seatEnv: { PI_CODING_AGENT_DIR: dir }, dryRun: false }).ok).toBe(true);
    expect(readFileSync(join(dir, 'config.yml'), 'utf8')).toMatch(/setupVersion: 2/);
    expect(prepareOmpSetup({ seatEnv: {}, dryRun: false })).toMatchObject({
      ok: true,
      detail: expect.stringContaining('left as it is'),
    });
    writeFileSync(join(dir, 'config.yml'), '- a\n- list\n');
    expect(prepareOmpSetup({ seatEnv: { PI_CODING_AGENT_DIR: dir }, dryRun: false })).toMatchObject({
      ok: false,
      code: 'RUNTIME_CONFIG_UNSAFE',
    });
    expect(readdirSync(dir)).toEqual(['config.yml']);
  });
});

describe('omp custody from a process table', () => {
  const HOME = '/h/agent';
  const CWD = '/w/work';
  const reader = (procs: ProcInfo[], cwds: Record<number, string> = {}): ProcReader => {
    const byPid = new Map(procs.map((p) => [p.pid, p]));
    const children = new Map<number, number[]>();
    for (const p of procs) children.set(p.ppid, [...(children.get(p.ppid) ?? []), p.pid]);
    return {
      snapshot: () => ({ takenAt: 1, byPid, children }),
      read: (pid) => byPid.get(pid),
      cwd: (pid) => cwds[pid] ?? CWD,
      environ: () => ({ HOME: '/h', PI_CODING_AGENT_DIR: HOME }),
      locks: () => [],
    };
  };
  const at = (pid: number, ppid: number, comm: string, argv: string[]) =>
    proc(comm, argv, { pid, ppid, pgid: pid, startTime: String(1000 + pid) });
  const rosterOf = (procs: ProcInfo[], cwds?: Record<number, string>) =>
    buildRoster({
      proc: reader(procs, cwds),
      io: memoryIO({
        dirs: {
          [`${HOME}/sessions`]: ['--w-work--'],
          [`${HOME}/sessions/--w-work--`]: [`2026_${X}.jsonl`, `2026_${Y}.jsonl`],
        },
      }),
      servers: [],
      clientForPath: () => {
        throw new Error('no tmux here');
      },
      keyForPath: () => undefined,
      knownHomes: [{ runtime: 'omp', home: HOME }],
      uid: 1000,
      selfPid: 1,
      now: () => 1,
    });
  const q = { runtime: 'omp', conversationId: X, cwd: CWD, home: HOME };

  it('`omp --resume X` from another folder owns X (omp resumes across folders)', async () => {
    const r = await rosterOf([at(500, 1, 'omp', ['bun', BIN, '--resume', X])], { 500: '/elsewhere' });
    const res = checkConversationFree(r, q);
    expect(res).toMatchObject({ ok: false, code: 'CONVERSATION_LIVE_ELSEWHERE' });
    expect(!res.ok && res.evidence?.owners).toEqual([
      expect.objectContaining({ pid: 500, source: 'argv', headless: true }),
    ]);
  });

  it('a prefix that can only be X owns X; one that could be X or Y owns both', async () => {
    const only = await rosterOf([at(500, 1, 'omp', ['bun', BIN, '-p', '--resume', X.slice(0, 8), 'hi'])], {
      500: '/x',
    });
    expect(checkConversationFree(only, q)).toMatchObject({ ok: false, code: 'CONVERSATION_LIVE_ELSEWHERE' });
    expect(checkConversationFree(only, { ...q, conversationId: Y }).ok).toBe(true);
    const both = await rosterOf([at(500, 1, 'omp', ['bun', BIN, '--resume', '01a23'])], { 500: '/x' });
    expect(checkConversationFree(both, q).ok).toBe(false);
    expect(checkConversationFree(both, { ...q, conversationId: Y }).ok).toBe(false);
  });

  it('an omp in the folder whose argv names nothing is doubted; one elsewhere, or on another conversation, is not', async () => {
    const plain = await rosterOf([at(500, 1, 'omp', ['bun', BIN, '-c'])]);
    expect(checkConversationFree(plain, q)).toMatchObject({ ok: false, code: 'CONVERSATION_OWNER_UNKNOWN' });
    const away = await rosterOf([at(500, 1, 'omp', ['bun', BIN])], { 500: '/elsewhere' });
    expect(checkConversationFree(away, q).ok).toBe(true);
    const other = await rosterOf([at(500, 1, 'omp', ['bun', BIN, '--resume', Y])]);
    expect(checkConversationFree(other, q).ok).toBe(true);
  });
});
