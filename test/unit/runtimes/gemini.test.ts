import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { AGENT_RUNTIMES, gemini } from '../../../src/main/engine/runtimes';
import { findGeminiTranscript, GEMINI_SIGNATURES } from '../../../src/main/engine/runtimes/gemini';
import { effectiveRetention, prepareGeminiSeat } from '../../../src/main/engine/runtimes/gemini-settings';
import { readGeminiPrompt, readGeminiScreen } from '../../../src/main/engine/runtimes/screens/gemini';
import { readPrompt } from '../../../src/main/engine/prompts/screens';
import { activityLabel, decideActivity } from '../../../src/main/engine/activity/decide';
import { memoryIO, proc } from './helpers';

const X = '65abc67d-5f95-4122-a01e-6ef385c5cef5';
const BIN = '/p/node_modules/.bin/gemini';
const ctx = { binary: BIN, cwd: '/w/proj', args: ['--model', 'gemini-2.5-flash'], newId: () => X };

describe('gemini: argv, processes and the conversation they name', () => {
  it('a fresh launch chooses the id up front (--session-id), a resume names it (--resume)', () => {
    expect(gemini.choosesIdUpFront).toBe(true);
    expect(gemini.freshArgv(ctx)).toEqual({
      argv: [BIN, '--session-id', X, '--model', 'gemini-2.5-flash'],
      conversationId: X,
    });
    expect(gemini.resumeArgv(ctx, X)).toEqual([BIN, '--resume', X, '--model', 'gemini-2.5-flash']);
  });

  // As /proc showed them for 0.61.0: a node launcher and the child it relaunches with a larger heap.
  const launcher = proc('node', ['node', BIN, '--session-id', X]);
  const child = proc('node', ['/usr/bin/node', '--max-old-space-size=12076', BIN, '--session-id', X]);
  const bundle = proc('node', [
    '/usr/bin/node',
    '/g/lib/node_modules/@google/gemini-cli/bundle/gemini.js',
    '--resume',
    X,
    '-p',
    'hi',
  ]);

  it('both of its node processes are Gemini, and only Gemini', () => {
    for (const p of [launcher, child, bundle])
      expect(AGENT_RUNTIMES.filter((r) => r.matches(p)).map((r) => r.id)).toEqual(['gemini']);
  });

  it('look-alikes are not Gemini (a name a user chose is no proof)', () => {
    for (const p of [
      proc('node', ['node', '/x/gemini-notes.js']),
      proc('node', ['node', '/x/not-gemini']),
      proc('bash', ['bash', '-c', 'gemini --resume x']),
      proc('vim', ['vim', 'gemini']),
      proc('node', ['node', '--require', '/x/gemini', '/srv/app.js']),
    ])
      expect(gemini.matches(p), p.argv.join(' ')).toBe(false);
  });

  it('argv names the conversation with --session-id or --resume, through node and its flags', () => {
    expect(gemini.conversationFromArgv(launcher.argv)).toBe(X);
    expect(gemini.conversationFromArgv(child.argv)).toBe(X);
    expect(gemini.conversationFromArgv(bundle.argv)).toBe(X);
    expect(gemini.conversationFromArgv([BIN, `--resume=${X}`])).toBe(X);
    expect(gemini.conversationFromArgv([BIN, '-r', X])).toBe(X);
  });

  it('argv that cannot name what it writes, or writes nothing, claims nothing', () => {
    for (const argv of [
      [BIN],
      [BIN, '--resume', 'latest'],
      [BIN, '--resume', '3'],
      [BIN, '--list-sessions'],
      [BIN, '--delete-session', '2'],
      ['node', '/x/app.js', '--resume', X],
    ]) {
      expect(gemini.conversationFromArgv(argv), argv.join(' ')).toBeUndefined();
    }
  });

  it('the missing-session report (exit 42) is recognised with its id, and nothing else is', () => {
    const text = `Error resuming session: Invalid session identifier "${X}".\n  Searched for sessions in /h/.gemini/tmp/proj/chats.\n  Use --list-sessions to see available sessions, then use --resume {number}, --resume {uuid}, or --resume latest.\n\n[rigdesk] gemini exited with status 42`;
    expect(GEMINI_SIGNATURES.missingConversation.exec(text)?.[1]).toBe(X);
    // No resumable file in the project at all (e.g. only a headerless one left): no id named.
    const none = 'Error resuming session: No previous sessions found for this project.';
    expect(GEMINI_SIGNATURES.missingConversation.exec(none)).not.toBeNull();
    expect(GEMINI_SIGNATURES.missingConversation.exec(none)!.slice(1).filter(Boolean)).toEqual([]);
    for (const other of [
      `Error starting session: Session ID "${X}" already exists. Use --resume to resume it, or provide a different ID.`,
      `To resume this session: gemini --resume ${X}`,
      '[rigdesk] gemini exited with status 42',
    ]) {
      expect(gemini.missingConversation.test(other), other).toBe(false);
    }
  });
});

describe('gemini: where a conversation lives (projects.json short name, chats/session-<minute>-<id8>.jsonl)', () => {
  const home = '/h';
  const chats = '/h/.gemini/tmp/proj/chats';
  const header = (id: string) =>
    `${JSON.stringify({ sessionId: id, projectHash: 'cbec', startTime: 't', kind: 'main' })}\n`;
  const projects = JSON.stringify({ projects: { '/w/proj': 'proj', '/w/other': 'proj-1' } });

  it("finds the transcript through the cwd's short name, and prefers it to a resume stub with the same id8", () => {
    const io = memoryIO({
      files: {
        '/h/.gemini/projects.json': projects,
        [`${chats}/session-2026-11-29T10-00-65abc67d.jsonl`]: `${header(X)}{"type":"user"}\n{"type":"gemini","content":"ACK"}\n`,
        [`${chats}/session-2026-11-29T10-05-65abc67d.jsonl`]: `${header(X)}{"$set":{}}\n`,
        [`${chats}/session-2026-11-29T10-07-65abc67d.jsonl`]:
          header('65abc67d-0000-4000-8000-000000000000') + 'x'.repeat(500),
      },
      dirs: {
        [chats]: [
          'session-2026-11-29T10-07-65abc67d.jsonl',
          'session-2026-11-29T10-05-65abc67d.jsonl',
          'session-2026-11-29T10-00-65abc67d.jsonl',
          'logs.json',
        ],
      },
    });
    expect(findGeminiTranscript(home, '/w/proj', X, io)).toBe(`${chats}/session-2026-11-29T10-00-65abc67d.jsonl`);
    expect(gemini.transcriptPath!(home, '/w/proj', X, io)).toBe(`${chats}/session-2026-11-29T10-00-65abc67d.jsonl`);
  });

  it('a file without a header (recreated by a live Gemini after cleanup) is not a transcript: Gemini cannot resume it', () => {
    const io = memoryIO({
      files: {
        '/h/.gemini/projects.json': projects,
        [`${chats}/session-2026-11-29T10-09-65abc67d.jsonl`]: '{"id":"u1","type":"user","content":[{"text":"x"}]}\n',
      },
      dirs: { [chats]: ['session-2026-11-29T10-09-65abc67d.jsonl'] },
    });
    expect(findGeminiTranscript(home, '/w/proj', X, io)).toBeUndefined();
  });

  it("a folder Gemini has not mapped, or another folder's project, has no transcript of it", () => {
    const io = memoryIO({
      files: { '/h/.gemini/projects.json': projects },
      dirs: { [chats]: ['session-2026-11-29T10-00-65abc67d.jsonl'] },
    });
    expect(findGeminiTranscript(home, '/w/elsewhere', X, io)).toBeUndefined();
    expect(findGeminiTranscript(home, '/w/other', X, io)).toBeUndefined();
    expect(findGeminiTranscript(home, '/w/proj', X, memoryIO({}))).toBeUndefined();
  });
});

/** Screens as captured from 0.61.0 at 160 columns (paths shortened, trailing blanks trimmed). */
const FOOTER = [
  '                                                                                                   ? for shortcuts',
  '────────────────────────────────────────────────────────────────────────────────',
  ' Shift+Tab to accept edits',
  '',
];
const BOX = (typed = '') => ` > ${typed || '  Type your message or @path/to/file'}`;
const TAIL = [
  '',
  ' workspace (/directory)                 sandbox                 /model',
  ' /w/proj                                no sandbox              gemini-2.5-flash',
];
const screen = (above: string[], typed = '', title?: string) => {
  const plain = [...above, ...FOOTER, BOX(typed), ...TAIL];
  const styled = plain.map((l) =>
    l === BOX()
      ? ' \x1b[38;5;183m> \x1b[7m\x1b[39m \x1b[0m\x1b[38;5;248m\x1b[48;5;240m Type your message or @path/to/file\x1b[39m'
      : l,
  );
  return { plain, styled, title };
};
const PERMISSION = [
  ' > RUN: touch gm-made.txt',
  '╭──────────────────────────────────────────────────────────────╮',
  '│ ? Shell  touch gm-made.txt                                   │',
  '│ ╭──────────────────────────────────────────────────────────╮ │',
  '│ │ touch gm-made.txt                                        │ │',
  '│ ╰──────────────────────────────────────────────────────────╯ │',
  '│ Allow execution of [Shell]?                                  │',
  '│                                                              │',
  '│ ● 1. Allow once                                              │',
  '│   2. Allow for this session                                  │',
  '│   3. No, suggest changes (esc)                               │',
  '╰──────────────────────────────────────────────────────────────╯',
];

describe('gemini: the pane title and the screen say what it is doing', () => {
  it('title ◇ Ready with the input box: idle, no draft', () => {
    expect(readGeminiScreen(screen([' > hello', '✦ ACK hello'], '', '◇  Ready (work)'))).toMatchObject({
      activity: 'idle',
      draft: '',
      matched: ['title ◇ Ready'],
    });
  });

  it('title ✦ Working…: working; and the spinner line alone (no title yet) says so too', () => {
    const spin = [
      ' > please SLOW reply',
      '✦ ACK please SLOW reply tick2 tick3',
      ' ⠴ Thinking... (esc to cancel, 2s)                                   ? for shortcuts',
    ];
    expect(readGeminiScreen(screen(spin, '', '✦  Working… (work)'))).toMatchObject({
      activity: 'working',
      matched: ['title ✦ Working…'],
    });
    expect(readGeminiScreen(screen(spin))).toMatchObject({ activity: 'working' });
    // A stale Ready title while the spinner runs is not idle.
    expect(readGeminiScreen(screen(spin, '', '◇  Ready (work)'))).toMatchObject({ activity: 'working' });
  });

  it('title ✋ Action Required with the tool box: needs_input permission (the box alone, too)', () => {
    const plain = [...PERMISSION, '', ' workspace (/directory)'];
    expect(readGeminiScreen({ plain, styled: plain, title: '✋  Action Required (work)' })).toMatchObject({
      needsInput: 'permission',
    });
    expect(readGeminiScreen({ plain, styled: plain })).toMatchObject({ needsInput: 'permission' });
    expect(
      readGeminiScreen({ plain: ['? what now'], styled: ['? what now'], title: '✋  Action Required (work)' }),
    ).toMatchObject({ needsInput: 'question' });
  });

  it("a person's unsent text in the input box is a draft; the grey placeholder is not", () => {
    expect(readGeminiScreen(screen([], 'half a thought', '◇  Ready (work)')).draft).toBe('half a thought');
    expect(readGeminiScreen(screen([], '', '◇  Ready (work)')).draft).toBe('');
  });

  it('text in the box drawn as Gemini draws typed text (colour 231, white) is a draft: a swallowed Enter is not read as sent', () => {
    // The box line as captured (`capture-pane -e`) with `doomed` pasted and its Enter swallowed.
    const s = screen([], 'doomed', undefined);
    const styled = s.plain.map((l) =>
      l === BOX('doomed') ? ' \x1b[38;5;183m> \x1b[38;5;231mdoomed\x1b[7m\x1b[39m \x1b[0m\x1b[39m\x1b[48;5;240m' : l,
    );
    expect(readGeminiScreen({ ...s, styled })).toMatchObject({ activity: 'idle', draft: 'doomed' });
    const grey = s.plain.map((l) => (l === BOX('doomed') ? ' \x1b[38;5;183m> \x1b[38;5;248mdoomed\x1b[39m' : l));
    expect(readGeminiScreen({ ...s, styled: grey }).draft, 'the same words in placeholder grey are a suggestion').toBe(
      '',
    );
  });

  it("Gemini's own retry phrase is unknown with the reason, never working", () => {
    const r = readGeminiScreen(
      screen(
        [' > go', ' ⠴ Trying to reach gemini-2.5-flash (Attempt 2/10) (esc to cancel, 9s)'],
        '',
        '✦  Working… (work)',
      ),
    );
    expect(r.activity).toBeUndefined();
    expect(r.needsInput).toBeUndefined();
    expect(r.matched![0]).toContain('Trying to reach gemini-2.5-flash (Attempt 2/10)');
  });

  it('a spinner running 30 s with nothing drawn since the prompt is unknown with the reason (a hidden 429 looks exactly so)', () => {
    const spin = (secs: string, ...drawn: string[]) =>
      screen(
        [
          ' > LIMIT please',
          ...drawn,
          ` ⠹ Thinking... (esc to cancel, ${secs})                              ? for shortcuts`,
        ],
        '',
        '✦  Working… (work)',
      );
    const silent = readGeminiScreen(spin('4m 53s'));
    expect(silent.activity).toBeUndefined();
    expect(silent.matched![0]).toMatch(/spinner for 293s .*429.* cannot be told/);
    const a = decideActivity({
      session: 'present',
      now: 10,
      evidence: [{ source: 'screen', at: 10, detail: silent.matched!.join('; ') }],
    });
    expect(activityLabel(a)).toBe('unknown');
    expect(readGeminiScreen(spin('31s')).activity).toBeUndefined();
    // Under the threshold, or with reply text or a tool box drawn since the prompt: working.
    expect(readGeminiScreen(spin('29s')).activity).toBe('working');
    expect(readGeminiScreen(spin('1m 5s', '✦ ACK LIMIT please tick2')).activity).toBe('working');
    expect(readGeminiScreen(spin('1m 5s', '│ ⊷  Shell sleep 90')).activity).toBe('working');
    // A draft typed into the box during the turn is not the prompt.
    expect(
      readGeminiScreen(
        screen([' > go', '✦ ACK go', ' ⠹ Thinking... (esc to cancel, 2m)'], 'next thing', '✦  Working… (work)'),
      ).activity,
    ).toBe('working');
  });

  it('the engine then says unknown, and keeps the retry phrase as the reason', () => {
    const r = readGeminiScreen(
      screen(
        [' > go', ' ⠴ Trying to reach gemini-2.5-flash (Attempt 2/10) (esc to cancel, 9s)'],
        '',
        '✦  Working… (work)',
      ),
    );
    const a = decideActivity({
      session: 'present',
      now: 10,
      evidence: [{ source: 'screen', at: 10, detail: r.matched!.join('; ') }],
    });
    expect(activityLabel(a)).toBe('unknown');
    expect(a.basis[0]!.detail).toContain('Trying to reach gemini-2.5-flash');
  });

  it('a quota error after the last prompt, back at the input box: usage_limit; an older one is history', () => {
    const err = '✕ [API Error: Resource has been exhausted (e.g. check quota). (fake server LIMIT)]';
    expect(readGeminiScreen(screen([' > LIMIT please', err], '', '◇  Ready (work)'))).toMatchObject({
      activity: 'idle',
      needsInput: 'usage_limit',
    });
    expect(
      readGeminiScreen(screen([' > LIMIT please', err, ' > next', '✦ ACK next'], '', '◇  Ready (work)')).needsInput,
    ).toBeUndefined();
  });

  it('a screen with neither title, spinner nor input box claims nothing', () => {
    expect(readGeminiScreen({ plain: ['$ ls'], styled: ['$ ls'] })).toEqual({});
  });
});

describe('gemini: Rigdesk answers its tool prompt with Enter only on "1. Allow once"', () => {
  it('reads the box, what it asks and whether Enter approves', () => {
    const p = readGeminiPrompt(PERMISSION)!;
    expect(p.approveReady).toBe(true);
    expect(p.lines[0]).toContain('? Shell  touch gm-made.txt');
    expect(p.lines.at(-1)).toContain('3. No, suggest changes');
    const moved = PERMISSION.map((l) => l.replace('● 1.', '  1.').replace('  2. Allow for', '● 2. Allow for'));
    expect(readGeminiPrompt(moved)!.approveReady).toBe(false);
    expect(readPrompt('gemini', PERMISSION)).toMatchObject({
      approveReady: true,
      fingerprint: expect.stringMatching(/^[0-9a-f]{16}$/),
    });
    // The same question asked again has the same fingerprint; a different command has another.
    expect(readPrompt('gemini', moved)!.fingerprint).toBe(readPrompt('gemini', PERMISSION)!.fingerprint);
    expect(
      readPrompt(
        'gemini',
        PERMISSION.map((l) => l.replace(/gm-made/g, 'other')),
      )!.fingerprint,
    ).not.toBe(readPrompt('gemini', PERMISSION)!.fingerprint);
  });
});

describe("gemini: session cleanup off, in the seat's own settings only, or no launch", () => {
  let root: string;
  afterEach(() => rmSync(root, { recursive: true, force: true }));
  const setup = () => {
    root = mkdtempSync(join(tmpdir(), 'rd-gmset-'));
    const home = join(root, 'home');
    const cwd = join(root, 'work');
    mkdirSync(join(home, '.gemini'), { recursive: true });
    mkdirSync(cwd, { recursive: true });
    const env = { GEMINI_CLI_SYSTEM_SETTINGS_PATH: join(root, 'etc', 'settings.json') };
    return { home, cwd, env, user: join(home, '.gemini', 'settings.json') };
  };

  it("the CLI's default is cleanup on", () => {
    const { home, cwd, env } = setup();
    expect(effectiveRetention(home, cwd, env)).toEqual({ enabled: true, scope: 'default' });
  });

  it('a seat with its own GEMINI_CLI_HOME gets cleanup off written there, keeping its other settings', () => {
    const { home, cwd, env, user } = setup();
    writeFileSync(
      user,
      JSON.stringify({ security: { auth: { selectedType: 'gemini-api-key' } }, general: { enableAutoUpdate: false } }),
    );
    const r = prepareGeminiSeat({ isolatedHome: home, home, cwd, env });
    expect(r).toMatchObject({ ok: true, wrote: true, retention: { enabled: false, scope: 'user' } });
    expect(JSON.parse(readFileSync(user, 'utf8'))).toEqual({
      security: { auth: { selectedType: 'gemini-api-key' } },
      general: { enableAutoUpdate: false, sessionRetention: { enabled: false } },
    });
  });

  it("a seat on a person's settings is refused when they keep cleanup on, and their file is not touched", () => {
    const { home, cwd, env, user } = setup();
    writeFileSync(user, '{"general":{}}');
    const r = prepareGeminiSeat({ home, cwd, env });
    expect(r).toMatchObject({
      ok: false,
      code: 'RUNTIME_CONFIG_UNSAFE',
      evidence: { retention: { enabled: true, scope: 'default' } },
    });
    expect(readFileSync(user, 'utf8')).toBe('{"general":{}}');
    writeFileSync(user, JSON.stringify({ general: { sessionRetention: { enabled: false } } }));
    expect(prepareGeminiSeat({ home, cwd, env })).toMatchObject({
      ok: true,
      wrote: false,
      retention: { enabled: false, scope: 'user' },
    });
  });

  it("workspace and system settings outrank the seat's own: cleanup on there refuses, naming the file", () => {
    const { home, cwd, env } = setup();
    mkdirSync(join(cwd, '.gemini'));
    writeFileSync(
      join(cwd, '.gemini', 'settings.json'),
      JSON.stringify({ general: { sessionRetention: { enabled: true, maxAge: '30d' } } }),
    );
    const ws = prepareGeminiSeat({ isolatedHome: home, home, cwd, env });
    expect(ws).toMatchObject({
      ok: false,
      code: 'RUNTIME_CONFIG_UNSAFE',
      evidence: { retention: { scope: 'workspace', path: join(cwd, '.gemini', 'settings.json') } },
    });
    rmSync(join(cwd, '.gemini'), { recursive: true });
    mkdirSync(join(root, 'etc'));
    writeFileSync(
      env.GEMINI_CLI_SYSTEM_SETTINGS_PATH,
      JSON.stringify({ general: { sessionRetention: { enabled: true } } }),
    );
    expect(prepareGeminiSeat({ isolatedHome: home, home, cwd, env })).toMatchObject({
      ok: false,
      evidence: { retention: { scope: 'system' } },
    });
  });

  it('a settings file Rigdesk cannot parse (comments) is neither rewritten nor trusted', () => {
    const { home, cwd, env, user } = setup();
    writeFileSync(user, '{ // mine\n "general": {} }');
    expect(prepareGeminiSeat({ isolatedHome: home, home, cwd, env })).toMatchObject({
      ok: false,
      code: 'RUNTIME_CONFIG_UNSAFE',
      evidence: { unreadable: user },
    });
    expect(readFileSync(user, 'utf8')).toBe('{ // mine\n "general": {} }');
  });

  it("doctor's dry run writes nothing and counts the seat's own file as Rigdesk will make it", () => {
    const { home, cwd, env, user } = setup();
    writeFileSync(user, '{}');
    expect(prepareGeminiSeat({ isolatedHome: home, home, cwd, env }, { write: false })).toMatchObject({
      ok: true,
      wrote: false,
    });
    expect(readFileSync(user, 'utf8')).toBe('{}');
    expect(prepareGeminiSeat({ home, cwd, env }, { write: false })).toMatchObject({ ok: false });
  });
});
