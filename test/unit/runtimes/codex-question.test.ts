import { describe, expect, it } from 'vitest';
import { readPrompt } from '../../../src/main/engine/prompts/screens';
import { readCodexScreen } from '../../../src/main/engine/runtimes/screens/codex';

/**
 * Codex's question (request_user_input, offered outside Plan mode by the person's
 * `default_mode_request_user_input` feature), as Codex 0.171.0 drew it against the fake model
 * server: its options by digit, `None of the above` with notes for an answer of one's own.
 */
const question = (at: number, notes?: string) => [
  '  >_ OpenAI Codex (v0.171.0)',
  '',
  '› ASK: Which colour?|Red|Blue',
  '',
  '  Question 1/1 (1 unanswered)',
  '  Which colour?',
  '',
  `  ${at === 1 ? '›' : ' '} 1. Red                the fake server's Red`,
  `  ${at === 2 ? '›' : ' '} 2. Blue               the fake server's Blue`,
  `  ${at === 3 ? '›' : ' '} 3. None of the above  Optionally, add details in notes (tab)`,
  ...(notes === undefined ? [] : ['', `  › ${notes}`]),
  '',
  notes === undefined
    ? '  tab to add notes | enter to submit answer | esc to interrupt'
    : '  tab or esc to clear notes | enter to submit answer',
];

const answered = [
  '› ASK: Which colour?|Red|Blue',
  '',
  '• Questions 1/1 answered',
  '  • Which colour?',
  '    answer: Blue',
  '',
  '• ACK tool result: {"answers":{"choice":{"answers":["Blue"]}}}',
  '',
  '› Ask Codex to do anything',
];

describe("Codex's question", () => {
  it('is a question that needs the person (not an idle composer with a draft), and its answer is not', () => {
    expect(readCodexScreen({ plain: question(1), styled: [] })).toMatchObject({ needsInput: 'question' });
    expect(readCodexScreen({ plain: question(3, 'Add notes'), styled: [] })).toMatchObject({ needsInput: 'question' });
    expect(readCodexScreen({ plain: answered, styled: [] }).needsInput).toBeUndefined();
  });

  it('offers each option by its digit (label without its description), other through None of the above, and cancel', () => {
    const p = readPrompt('codex', question(1))!;
    expect(p.kind).toBe('question');
    expect(p.offers.map((o) => [o.choice, o.label, o.keys.join(' ')])).toEqual([
      ['option', 'Red', '1'],
      ['option', 'Blue', '2'],
      ['option', 'None of the above', '3'],
      ['other', 'Other (type an answer)', 'Down Down Tab'],
      ['deny', 'Cancel', 'Escape'],
    ]);
  });

  it('moves from wherever the highlight is, and a moved highlight is a different prompt to answer', () => {
    const fromTwo = readPrompt('codex', question(2))!;
    expect(fromTwo.offers.find((o) => o.choice === 'other')?.keys).toEqual(['Down', 'Tab']);
    expect(readPrompt('codex', question(3))!.offers.find((o) => o.choice === 'other')?.keys).toEqual(['Tab']);
    expect(fromTwo.fingerprint).not.toBe(readPrompt('codex', question(1))!.fingerprint);
    expect(readPrompt('codex', question(1))!.fingerprint).toBe(readPrompt('codex', question(1))!.fingerprint);
  });

  it('reads a narrow pane, where labels and descriptions wrap in their columns', () => {
    const narrow = [
      '  Question 1/1 (1 unanswered)',
      '  Pick a side',
      '  › 1. Left             the fake',
      "                        server's",
      '                        Left',
      '    2. Right            the fake',
      "                        server's",
      '                        Right',
      '    3. None of the      Optionally',
      '       above            , add',
      '                        details in',
      '                        notes',
      '                        (tab)',
      '  tab to add notes',
      '  enter to submit answer',
      '  esc to interrupt',
    ];
    expect(readCodexScreen({ plain: narrow, styled: [] })).toMatchObject({ needsInput: 'question' });
    expect(readPrompt('codex', narrow)!.offers.map((o) => [o.choice, o.label, o.keys.join(' ')])).toEqual([
      ['option', 'Left', '1'],
      ['option', 'Right', '2'],
      ['option', 'None of the above', '3'],
      ['other', 'Other (type an answer)', 'Down Down Tab'],
      ['deny', 'Cancel', 'Escape'],
    ]);
  });

  it('is no question once answered', () => {
    expect(readPrompt('codex', answered)).toBeUndefined();
  });
});

describe("Codex's command approval in a narrow pane", () => {
  // As a 35-column grid slot drew it: the question, the options and the footer all wrap.
  const narrow = [
    '• Running touch always-card.txt',
    '',
    '  Would you like to run the',
    '  following command?',
    '',
    '  Environment: local',
    '',
    '  Reason: fake server RUN',
    '',
    '  $ touch always-card.txt',
    '',
    '› 1. Yes, proceed (y)',
    "  2. Yes, and don't ask again for",
    '     commands that start with `touch',
    '     always-card.txt` (p)',
    '  3. No, and tell Codex what to do',
    '     differently (esc)',
    '',
    '  Press enter to confirm or esc to',
    '  cancel',
  ];

  it('is a permission prompt, and offers allow always by its own key', () => {
    expect(readCodexScreen({ plain: narrow, styled: [] })).toMatchObject({ needsInput: 'permission' });
    const p = readPrompt('codex', narrow)!;
    expect(p.kind).toBe('permission');
    expect(p.offers.map((o) => [o.choice, o.keys.join(' ')])).toEqual([
      ['approve', 'y'],
      ['allow_always', 'p'],
      ['deny', 'Escape'],
      ['deny_with_message', 'Escape'],
    ]);
  });
});
