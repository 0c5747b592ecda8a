/**
 * Qwen Code's adapter against what the real CLI (0.15.10) printed and ran: launch and resume argv,
 * both of its node processes recognised (the launcher and the relaunched child), the conversation
 * named by argv, where its transcript lives, its "missing conversation" words, and its screens
 * (captured from a 200×50 tmux pane, trailing spaces trimmed, the probe's folder shortened).
 */
import { describe, expect, it } from 'vitest';
import { qwen, qwenTranscriptFile, QWEN_LAYOUT } from '../../../src/main/engine/runtimes/qwen';
import { readQwenScreen } from '../../../src/main/engine/runtimes/screens/qwen';
import { AGENT_RUNTIMES } from '../../../src/main/engine/runtimes';
import { memoryIO, proc } from './helpers';

const ID = '11111111-2222-4333-8444-555555555555';
const BIN = '/p/node_modules/.bin/qwen';

describe('qwen: launch and resume argv', () => {
  it('a fresh launch chooses the conversation id up front (--session-id) and names it', () => {
    const f = qwen.freshArgv({ binary: BIN, cwd: '/w', args: ['--yolo'], newId: () => ID });
    expect(f).toEqual({ argv: [BIN, '--session-id', ID, '--yolo'], conversationId: ID });
    expect(qwen.choosesIdUpFront).toBe(true);
  });
  it('a resume names the id (--resume <uuid>)', () => {
    expect(qwen.resumeArgv({ binary: BIN, cwd: '/w', args: [], newId: () => 'x' }, ID)).toEqual([BIN, '--resume', ID]);
  });
});

describe('qwen: which processes are Qwen', () => {
  // As ps showed them: the launcher, and the child it relaunches with node's own flags first.
  const launcher = proc('node', ['node', BIN, '--session-id', ID]);
  const child = proc('node', ['/usr/bin/node', '--max-old-space-size=4096', BIN, '--session-id', ID]);
  const global = proc('node', ['/usr/bin/node', '/usr/lib/node_modules/@qwen-code/qwen-code/cli.js', '-r', ID]);
  it('both node processes of one Qwen match, and only Qwen matches them', () => {
    for (const p of [launcher, child, global]) {
      expect(qwen.matches(p), p.argv.join(' ')).toBe(true);
      expect(AGENT_RUNTIMES.filter((r) => r.matches(p)).map((r) => r.id)).toEqual(['qwen']);
    }
  });
  it('other node programs do not match, even with qwen in an argument', () => {
    expect(qwen.matches(proc('node', ['node', '/p/server.js', 'qwen']))).toBe(false);
    expect(qwen.matches(proc('node', ['node', '/p/qwen-helper.js']))).toBe(false);
    expect(qwen.matches(proc('bash', ['bash', '-c', 'qwen --resume x']))).toBe(false);
  });
  it('argv names the conversation for --session-id, --resume and -r, and nothing for a picker or -c', () => {
    expect(qwen.conversationFromArgv(launcher.argv)).toBe(ID);
    expect(qwen.conversationFromArgv(child.argv)).toBe(ID);
    expect(qwen.conversationFromArgv(['node', BIN, '--resume', ID])).toBe(ID);
    expect(qwen.conversationFromArgv(['node', BIN, `--resume=${ID}`])).toBe(ID);
    expect(qwen.conversationFromArgv(global.argv)).toBe(ID);
    expect(qwen.conversationFromArgv(['node', BIN, '--resume'])).toBeUndefined();
    expect(qwen.conversationFromArgv(['node', BIN, '-c'])).toBeUndefined();
    expect(qwen.conversationFromArgv(['node', BIN, '--resume', 'my title'])).toBeUndefined();
  });
});

describe('qwen: transcripts and missing conversations', () => {
  it('the transcript is <home>/projects/<cwd, every non-alphanumeric → "-">/chats/<id>.jsonl', () => {
    expect(QWEN_LAYOUT.slug('/w/rd-qwen.x0jm_Uq/my work')).toBe('-w-rd-qwen-x0jm-Uq-my-work');
    const path = qwenTranscriptFile('/h/.qwen', '/w/a.b', ID);
    expect(path).toBe(`/h/.qwen/projects/-w-a-b/chats/${ID}.jsonl`);
    expect(qwen.transcriptPath!('/h/.qwen', '/w/a.b', ID, memoryIO({ files: { [path]: '{}' } }))).toBe(path);
    expect(qwen.transcriptPath!('/h/.qwen', '/w/a.b', ID, memoryIO({}))).toBeUndefined();
  });
  it('recognises its own "no saved session" words, with the id, and not a reused-id refusal', () => {
    const m = qwen.missingConversation.exec(
      `No saved session found with ID ${ID}. Run \`qwen --resume\` without an ID to choose from existing sessions.`,
    );
    expect(m?.[1]).toBe(ID);
    expect(qwen.missingConversation.test('No saved session found with title "not-a-uuid".')).toBe(true);
    expect(qwen.missingConversation.test(`Error: Session Id ${ID} is already in use.`)).toBe(false);
    expect(qwen.missingConversation.test(`To continue this session, run qwen --resume ${ID}`)).toBe(false);
  });
});

const RULE = '─'.repeat(200);
const HEAD = [
  '   ▄▄▄▄▄▄  ▄▄     ▄▄ ▄▄▄▄▄▄▄ ▄▄▄    ▄▄   ┌──────────────────────────────────────────────────────────┐',
  '  ██╔═══██╗██║    ██║██╔════╝████╗  ██║  │ >_ Qwen Code (v0.15.10)                                  │',
  '  ██║▄▄ ██║██║███╗██║██╔══╝  ██║╚██╗██║  │ API Key | fake-model (/model to change)                  │',
  '  Tips: Type / to open the command popup; Tab autocompletes slash commands and saved prompts.',
];
const BOX = [RULE, '>   Type your message or @path/to/file', RULE, '  ? for shortcuts'];
const screen = (lines: string[], styled?: string[]) => ({
  plain: lines,
  styled: styled ?? lines,
  title: 'Qwen - work',
});

describe('qwen: screens', () => {
  it('idle: the input box with its placeholder, no spinner; the placeholder is not a draft', () => {
    expect(readQwenScreen(screen([...HEAD, '  > hello there', '  ✦ ACK hello there', ...BOX]))).toMatchObject({
      activity: 'idle',
      draft: '',
    });
  });
  it('a draft: typed text in the box, without the zero-width cursor Qwen draws after it', () => {
    const r = readQwenScreen(screen([...HEAD, RULE, '> hello there \u200b', RULE, '  ? for shortcuts']));
    expect(r).toMatchObject({ activity: 'idle', draft: 'hello there' });
  });
  it('working: a streaming reply (spinner counting tokens), whatever its witty phrase', () => {
    for (const phrase of [
      'Letting the thoughts marinate...',
      'Looking for an adult superviso... I mean, processing.',
    ]) {
      const r = readQwenScreen(
        screen([
          ...HEAD,
          '  > please SLOW reply',
          '  ✦ ACK please SLOW reply tick2 tick3',
          `  .   ${phrase} (2s · ↓ 8 tokens · esc to cancel)`,
          ...BOX,
        ]),
      );
      expect(r.activity, phrase).toBe('working');
      expect(r.needsInput).toBeUndefined();
    }
  });
  it('working: a tool call pending (spinner counting tokens up)', () => {
    const r = readQwenScreen(
      screen([
        ...HEAD,
        '  > RUN: touch qw-made.txt',
        '  ╭────╮',
        '  │ .  Shell touch qw-made.txt │',
        '  ╰────╯',
        '  .   Doing research on the latest memes... (0s · ↑ 1 tokens · esc to cancel)',
        ...BOX,
      ]),
    );
    expect(r.activity).toBe('working');
  });
  it('needs_input (permission): the confirmation dialog replaces the box', () => {
    const r = readQwenScreen(
      screen([
        ...HEAD,
        '  > RUN: touch qw-made.txt',
        '  ╭────╮',
        '  │ ?  Shell touch qw-made.txt ←  │',
        '  │   touch qw-made.txt  │',
        "  │ Allow execution of: 'touch'?  │",
        '  │ › 1. Yes, allow once  │',
        "  │   2. Always allow run 'touch *' commands in this project  │",
        '  │   4. No, suggest changes (esc)  │',
        '  ╰────╯',
        '  ⠏ Waiting for user confirmation...',
      ]),
    );
    expect(r.needsInput).toBe('permission');
  });
  it('a silent spinner (no token count) is working at first, and unknown with the reason after 30 s: a hidden 429 cannot be told', () => {
    const at = (t: string) =>
      readQwenScreen(
        screen([
          ...HEAD,
          '  > LIMIT please',
          `  ..  Just waiting for the dial-up tone to finish... (${t} · esc to cancel)`,
          ...BOX,
        ]),
      );
    expect(at('14s').activity).toBe('working');
    for (const t of ['30s', '1m 30s', '59m 5s']) {
      const r = at(t);
      expect(r.activity, t).toBeUndefined();
      expect(r.needsInput, t).toBeUndefined();
      expect(r.matched?.[0], t).toMatch(/429.*cannot be told/);
    }
    // Counting tokens after minutes is a long reply, not a silent wait.
    expect(
      readQwenScreen(screen([...HEAD, '  > go', '  .   Thinking... (2m 3s · ↓ 900 tokens · esc to cancel)', ...BOX]))
        .activity,
    ).toBe('working');
  });
  it('a visible 429 retry is a usage limit; the same error before the last turn is history', () => {
    const err = [
      '  ✕ [API Error: 429 Rate limit reached (fake server LIMIT)] (Retrying in 53s… (attempt 1/10))',
      '  ↻ Retrying in 53 seconds… (attempt 1/10)',
    ];
    const now = readQwenScreen(
      screen([...HEAD, '  > LIMIT please', ...err, '  .   Engage. (1m 46s · esc to cancel)', ...BOX]),
    );
    expect(now.needsInput).toBe('usage_limit');
    const old = readQwenScreen(
      screen([
        ...HEAD,
        '  > LIMIT please',
        ...err,
        '  ● Request cancelled.',
        '  > hello again',
        '  ✦ ACK hello again',
        ...BOX,
      ]),
    );
    expect(old).toMatchObject({ activity: 'idle' });
    expect(old.needsInput).toBeUndefined();
  });
  it('a screen without the box (still starting) claims nothing', () => {
    expect(readQwenScreen(screen(['', '  loading']))).toEqual({});
  });
});

describe('qwen: the permission prompt as rigdesk prompts shows it', () => {
  const W = 60;
  const boxed = (s: string) => `  │ ${s.padEnd(W)}│`;
  const dialog = (selected = 1) => [
    ...HEAD,
    '  > RUN: touch qw-made.txt',
    `  ╭${'─'.repeat(W + 1)}╮`,
    boxed('?  Shell touch qw-made.txt ←'),
    boxed(''),
    boxed('  touch qw-made.txt'),
    boxed(''),
    boxed("Allow execution of: 'touch'?"),
    boxed(''),
    ...[
      '1. Yes, allow once',
      "2. Always allow run 'touch *' commands in this project",
      "3. Always allow run 'touch *' commands for this user",
      '4. No, suggest changes (esc)',
    ].map((o, i) => boxed(`${i + 1 === selected ? '›' : ' '} ${o}`)),
    `  ╰${'─'.repeat(W + 1)}╯`,
    '  ⠏ Waiting for user confirmation...',
  ];
  it('shows the command and the question; Enter approves while "1. Yes" is selected, and the fingerprint ignores the selection', async () => {
    const { readPrompt, PROMPT_KEYS } = await import('../../../src/main/engine/prompts/screens');
    const p = readPrompt('qwen', dialog())!;
    expect(p.lines.join('\n')).toContain('touch qw-made.txt');
    expect(p.lines.at(-1)).toContain('Waiting for user confirmation');
    expect(p.approveReady).toBe(true);
    expect(PROMPT_KEYS.qwen).toEqual({ approve: ['Enter'], deny: ['Escape'] });
    const moved = readPrompt('qwen', dialog(2))!;
    expect(moved.approveReady).toBe(false);
    expect(moved.fingerprint).toBe(p.fingerprint);
    const other = readPrompt(
      'qwen',
      dialog().map((l) => l.replace(/touch/g, 'rm')),
    )!;
    expect(other.fingerprint).not.toBe(p.fingerprint);
    expect(readPrompt('qwen', [...HEAD, ...BOX])).toBeUndefined();
  });
});

describe('qwen: a silent spinner becomes unknown activity, with the reason kept', () => {
  it("the engine decides unknown (never working or idle) and keeps the screen reader's reason in its basis", async () => {
    const { decideActivity } = await import('../../../src/main/engine/activity/decide');
    const r = readQwenScreen(
      screen([...HEAD, '  > LIMIT please', '  ..  Just waiting... (1m 30s · esc to cancel)', ...BOX]),
    );
    const a = decideActivity({
      session: 'present',
      now: 10,
      evidence: [
        {
          source: 'screen',
          at: 10,
          detail: r.matched?.join('; '),
          ...(r.draft !== undefined ? { draft: r.draft } : {}),
        },
      ],
    });
    expect(a.activity).toBe('unknown');
    expect(a.needsInput).toBe('none');
    expect(a.basis[0]?.detail).toMatch(/429.*cannot be told/);
  });
});
