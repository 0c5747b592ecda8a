/**
 * OpenCode's adapter without the CLI: argv, screens (lines as observed on 1.18.33, 200 columns with
 * the sidebar cut off) and the session-ownership rule. The real CLI's journey is
 * test/journeys/opencode.test.ts.
 */
import Database from 'better-sqlite3';
import { mkdirSync, mkdtempSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { opencode, opencodeSessionFromArgv } from '../../../src/main/engine/runtimes/opencode';
import { opencodeSessionClaims, START_SLACK_MS } from '../../../src/main/engine/runtimes/opencode-sessions';
import { opencodeApproveReady, readOpencodeScreen } from '../../../src/main/engine/runtimes/screens/opencode';
import { readPrompt } from '../../../src/main/engine/prompts/screens';
import { checkConversationFree } from '../../../src/main/engine/custody/guard';
import type { Roster, RosterAgent } from '../../../src/main/engine/roster/types';
import type { ConversationClaim } from '../../../src/main/engine/runtimes/types';
import { memoryIO } from './helpers';

const ID = 'ses_dcf92193cffeAHxw5beoaviPAI';
const RULE = `  ╹${'▀'.repeat(150)}`;
const screen = (lines: string[]) => ({ plain: lines, styled: lines });
const box = (text: string) => [
  '  ┃',
  `  ┃  ${text}`,
  '  ┃',
  `  ┃  Build · Fake Model Fake${' '.repeat(120)}~/work`,
  RULE,
];

describe('OpenCode argv', () => {
  it('a resume names its session; a fork, a bare launch and a malformed id name none', () => {
    expect(opencodeSessionFromArgv(['opencode', '-s', ID])).toBe(ID);
    expect(opencodeSessionFromArgv(['/x/opencode', 'run', '--session', ID, 'hi'])).toBe(ID);
    expect(opencodeSessionFromArgv(['opencode', `--session=${ID}`])).toBe(ID);
    expect(opencodeSessionFromArgv(['opencode', '-s', ID, '--fork'])).toBeUndefined();
    expect(opencodeSessionFromArgv(['opencode'])).toBeUndefined();
    expect(opencodeSessionFromArgv(['opencode', '-s', 'foo'])).toBeUndefined();
  });
  it('resumes with -s and launches fresh with no id (OpenCode cannot be told one)', () => {
    const ctx = { binary: '/b/opencode', cwd: '/w', args: ['--port', '0'], newId: () => 'x' };
    expect(opencode.freshArgv(ctx)).toEqual({ argv: ['/b/opencode', '--port', '0'] });
    expect(opencode.resumeArgv(ctx, ID)).toEqual(['/b/opencode', '-s', ID, '--port', '0']);
    expect(opencode.choosesIdUpFront).toBe(false);
  });
  it('knows its own missing-session words', () => {
    expect(opencode.missingConversation.test(`Error: Session not found: ${ID}`)).toBe(true);
    expect(opencode.missingConversation.test('Error: Invalid session ID: unknown error')).toBe(true);
    expect(opencode.missingConversation.test('ACK hello')).toBe(false);
  });
  it("keeps a seat's TMPDIR in Rigdesk's folder for it, unless the spec sets one", () => {
    const dir = mkdtempSync(join(tmpdir(), 'rd-oc-unit-'));
    try {
      expect(opencode.seatEnv!({ seatDir: dir, env: {} })).toEqual({
        TMPDIR: join(dir, 'tmp'),
        OPENCODE_DISABLE_AUTOUPDATE: '1',
      });
      expect(statSync(join(dir, 'tmp')).isDirectory()).toBe(true);
      expect(
        opencode.seatEnv!({ seatDir: dir, env: { TMPDIR: join(dir, 'mine'), OPENCODE_DISABLE_AUTOUPDATE: '0' } }),
      ).toEqual({});
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

describe('OpenCode screen', () => {
  it('idle: the footer has ctrl+p commands and no esc interrupt; the dim placeholder is no draft', () => {
    const r = readOpencodeScreen(
      screen([
        ...box('Ask anything… "Fix a TODO in the codebase"'),
        '   ~/work      30  ctrl+p commands    • OpenCode 1.18.33',
      ]),
    );
    expect(r).toMatchObject({ activity: 'idle', draft: '' });
    expect(r.needsInput).toBeUndefined();
  });
  it('working: esc interrupt in the footer', () => {
    expect(
      readOpencodeScreen(
        screen([...box(''), '   ⬝⬝⬝⬝⬝⬝⬝⬝  esc interrupt      tab agents  ctrl+p commands    • OpenCode 1.18.33']),
      ).activity,
    ).toBe('working');
  });
  it('a typed draft is read without the sidebar beside the box', () => {
    const lines = box(`half a thought${' '.repeat(140)}Context`);
    expect(readOpencodeScreen(screen([...lines, '   ~/work  ctrl+p commands'])).draft).toBe('half a thought');
  });
  it('a 429 OpenCode retries behind its spinner is a usage limit, named from the footer', () => {
    const r = readOpencodeScreen(
      screen([
        ...box(''),
        '   ■■■■■⬝⬝⬝ Rate limit reached (fake server LIMIT) [retrying in 59m 56s attempt #1]      esc interrupt    • OpenCode 1.18.33',
      ]),
    );
    expect(r).toMatchObject({ activity: 'working', needsInput: 'usage_limit' });
  });
  it('a permission prompt needs input, whatever the footer says', () => {
    const lines = [
      '  ┃  △ Permission required',
      '  ┃    # Shell command',
      '  ┃',
      '  ┃  $ echo hi-oc',
      '  ┃',
      '  ┃   Allow once   Allow always   Reject        ctrl+f fullscreen  ⇆ select  enter confirm',
    ];
    expect(readOpencodeScreen(screen(lines)).needsInput).toBe('permission');
    const p = readPrompt('opencode', lines);
    expect(p?.lines).toContain('$ echo hi-oc');
    expect(p?.lines.at(-1)).toBe('Allow once   Allow always   Reject');
    expect(p?.fingerprint).toMatch(/^[0-9a-f]{16}$/);
  });
  it('no box, no prompt: no claim (unknown, never idle)', () => {
    expect(readOpencodeScreen(screen(['', 'loading']))).toEqual({});
  });
  it('approve is ready only while Allow once is the highlighted option', () => {
    const opt = (a: string, b: string, c: string) =>
      `\x1b[48;5;234m  \x1b[48;5;${a}m \x1b[38;5;232mAllow once\x1b[38;5;15m \x1b[48;5;${b}m  \x1b[38;5;8mAllow always\x1b[38;5;15m \x1b[48;5;${c}m  \x1b[38;5;8mReject`;
    expect(opencodeApproveReady(opt('215', '234', '234'))).toBe(true);
    expect(opencodeApproveReady(opt('234', '215', '234'))).toBe(false);
    expect(opencodeApproveReady(opt('234', '234', '215'))).toBe(false);
  });
});

describe('OpenCode session ownership (opencode.db + process start)', () => {
  const at = 1_796_108_838_595;
  const sess = (id: string, created: number, directory = '/w') => ({
    id,
    directory,
    timeCreated: created,
    timeUpdated: created,
  });
  const proc = (pid: number, startedAtMs: number | undefined, cwd = '/w') => ({
    pid,
    startTime: String(pid),
    argv: ['opencode'],
    cwd,
    startedAtMs,
  });
  it("a session created after the only live OpenCode in its folder started is that process's", () => {
    const c = opencodeSessionClaims({ home: '/d', processes: [proc(10, at - 5000)], sessions: [sess(ID, at)] });
    expect(c).toMatchObject([{ conversationId: ID, pid: 10 }]);
  });
  it('a process that started after the session was created did not create it', () => {
    const c = opencodeSessionClaims({
      home: '/d',
      processes: [proc(10, at - 5000), proc(11, at + START_SLACK_MS + 10)],
      sessions: [sess(ID, at)],
    });
    expect(c.map((x) => x.pid)).toEqual([10]);
  });
  it('two live OpenCodes in the folder that had both started: no claim (custody doubts both)', () => {
    expect(
      opencodeSessionClaims({
        home: '/d',
        processes: [proc(10, at - 5000), proc(11, at - 3000)],
        sessions: [sess(ID, at)],
      }),
    ).toEqual([]);
  });
  it('a process with an unreadable start time makes every session in its folder ambiguous', () => {
    expect(
      opencodeSessionClaims({
        home: '/d',
        processes: [proc(10, at - 5000), proc(11, undefined)],
        sessions: [sess(ID, at)],
      }),
    ).toEqual([]);
    expect(opencodeSessionClaims({ home: '/d', processes: [proc(11, undefined)], sessions: [sess(ID, at)] })).toEqual(
      [],
    );
  });
  it('an OpenCode in another folder is no candidate', () => {
    const c = opencodeSessionClaims({
      home: '/d',
      processes: [proc(10, at - 5000), proc(11, at - 3000, '/elsewhere')],
      sessions: [sess(ID, at)],
    });
    expect(c.map((x) => x.pid)).toEqual([10]);
  });
});

describe('OpenCode custody through the shared guard', () => {
  const roster = (agents: RosterAgent[], claims: ConversationClaim[] = []): Roster => ({
    takenAt: 1,
    servers: [],
    panes: [],
    agents,
    claims,
    problems: [],
  });
  const oc = (pid: number, o: Partial<RosterAgent> = {}): RosterAgent => ({
    runtime: 'opencode',
    pid,
    startTime: String(pid),
    argv: ['opencode'],
    cwd: '/w',
    home: '/d',
    ...o,
  });
  it('a live OpenCode in the folder whose session nobody can name: a resume there is refused as unknown, not allowed', () => {
    const r = checkConversationFree(roster([oc(10), oc(11)]), {
      runtime: 'opencode',
      conversationId: ID,
      cwd: '/w',
      home: '/d',
    });
    expect(r).toMatchObject({ ok: false, code: 'CONVERSATION_OWNER_UNKNOWN' });
  });
  it('the same OpenCode in another data dir or folder is no doubt', () => {
    expect(
      checkConversationFree(roster([oc(10, { home: '/other' })]), {
        runtime: 'opencode',
        conversationId: ID,
        cwd: '/w',
        home: '/d',
      }).ok,
    ).toBe(true);
    expect(
      checkConversationFree(roster([oc(10, { cwd: '/x' })]), {
        runtime: 'opencode',
        conversationId: ID,
        cwd: '/w',
        home: '/d',
      }).ok,
    ).toBe(true);
  });
  it('a session proven from opencode.db is owned: CONVERSATION_LIVE_ELSEWHERE names the process', () => {
    const a = oc(10, { conversationId: ID, conversationSource: 'argv' });
    const r = checkConversationFree(
      roster([a], [{ runtime: 'opencode', conversationId: ID, pid: 10, source: 'argv', home: '/d' }]),
      { runtime: 'opencode', conversationId: ID, cwd: '/w', home: '/d' },
    );
    expect(r).toMatchObject({ ok: false, code: 'CONVERSATION_LIVE_ELSEWHERE' });
  });
});

describe('OpenCode liveClaims over a real opencode.db (written here with the columns OpenCode 1.18.33 has)', () => {
  it('reads top-level sessions read-only and turns /proc start ticks into the proof', () => {
    const dir = mkdtempSync(join(tmpdir(), 'rd-oc-db-'));
    try {
      mkdirSync(join(dir, 'opencode'));
      const db = new Database(join(dir, 'opencode', 'opencode.db'));
      db.pragma('journal_mode = WAL');
      db.exec(
        'CREATE TABLE session (id text PRIMARY KEY, parent_id text, directory text NOT NULL, time_created integer NOT NULL, time_updated integer NOT NULL)',
      );
      const btime = 1_796_100_000;
      const startTicks = 50_000; // 500 s after boot
      const started = (btime + 500) * 1000;
      const put = db.prepare('INSERT INTO session VALUES (?, ?, ?, ?, ?)');
      put.run(ID, null, '/w', started + 4000, started + 9000);
      put.run('ses_childchildchildchildchild', ID, '/w', started + 5000, started + 5000); // a subagent's: not a conversation
      put.run('ses_oldoldoldoldoldoldoldoldol', null, '/w', started - 60_000, started - 50_000); // from before it started
      db.close();
      const io = { ...memoryIO({ files: { '/proc/stat': `cpu 1 2 3\nbtime ${btime}\n` } }) };
      const claims = opencode.liveClaims!({
        home: dir,
        io,
        alive: () => true,
        locks: [],
        processes: [{ pid: 10, startTime: String(startTicks), argv: ['opencode'], cwd: '/w' }],
      });
      expect(claims.map((c) => [c.conversationId, c.pid])).toEqual([[ID, 10]]);
      expect(opencode.liveClaims!({ home: dir, io, alive: () => true, locks: [], processes: [] })).toEqual([]);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
