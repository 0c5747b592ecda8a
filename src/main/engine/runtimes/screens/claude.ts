import {
  firstIndexFrom,
  lastIndexMatching,
  startsDim,
  tidyLines,
  type PromptRead,
  readOptions,
  type ScreenReading,
  type ScreenText,
} from '../types';

/**
 * Claude Code's screen (observed on 2.1.197, 200x50): the input box is a `❯ ` line between two
 * full-width `────` rules; below them the footer says `? for shortcuts` when idle and
 * `esc to interrupt` while a turn runs. Dialogs replace the box.
 */
export const CLAUDE_SCREEN = {
  rule: /^─{8,}\s*$/,
  prompt: /^❯ ?/,
  working: /esc to interrupt/,
  spinner: /^\S (\S+)… \(\d+s ·/,
  idle: /\? for shortcuts/,
  permission: /Do you want to proceed\?/,
  permissionFooter: /Esc to cancel/,
  trust: /Is this a project you created or one you trust\?|Yes, I trust this folder/,
  login: /Detected a custom API key|Select login method|Please run \/login|Invalid API key/,
  usageLimit:
    /API Error: Request rejected \(429\)|API Error: 429|usage limit reached|hit your (monthly )?(usage|spend) limit/i,
} as const;

export function readClaudeScreen({ plain, styled }: ScreenText): ScreenReading {
  const text = plain.join('\n');
  if (CLAUDE_SCREEN.permission.test(text) && CLAUDE_SCREEN.permissionFooter.test(text))
    return { needsInput: 'permission', matched: ['Do you want to proceed?'] };
  if (CLAUDE_SCREEN.trust.test(text)) return { needsInput: 'trust_dialog', matched: ['workspace trust dialog'] };
  if (CLAUDE_SCREEN.login.test(text)) return { needsInput: 'login', matched: ['API key / login dialog'] };

  const b = lastIndexMatching(plain, CLAUDE_SCREEN.rule);
  const a = b > 0 ? lastIndexMatching(plain.slice(0, b), CLAUDE_SCREEN.rule) : -1;
  if (a < 0) return {};
  const footer = plain.slice(b + 1).join('\n');
  const box = plain.slice(a + 1, b);
  const first = box[0] ?? '';
  let draft: string | undefined;
  if (CLAUDE_SCREEN.prompt.test(first)) {
    const typed = [first.replace(CLAUDE_SCREEN.prompt, ''), ...box.slice(1).map((l) => l.replace(/^ {2}/, ''))]
      .join('\n')
      .trim();
    // A suggestion is drawn dim right after the prompt: it is not the person's text.
    draft = typed && !startsDim(styled[a + 1] ?? '', '❯ ') ? typed : '';
  }
  const working =
    CLAUDE_SCREEN.working.test(footer) || plain.slice(Math.max(0, a - 3), a).some((l) => CLAUDE_SCREEN.spinner.test(l));
  const reading: ScreenReading = {
    activity: working ? 'working' : 'idle',
    matched: [
      working ? 'esc to interrupt' : CLAUDE_SCREEN.idle.test(footer) ? '? for shortcuts' : 'input box, no spinner',
    ],
  };
  if (draft !== undefined) reading.draft = draft;
  if (!working) {
    // Only what came after the last prompt the person sent counts: an old error is history.
    const lastUser = lastIndexMatching(plain.slice(0, a), /^❯ \S/);
    const since = plain.slice(Math.max(lastUser, 0), a).join('\n');
    if (CLAUDE_SCREEN.usageLimit.test(since)) {
      reading.needsInput = 'usage_limit';
      reading.matched = [since.match(CLAUDE_SCREEN.usageLimit)![0]];
    }
  }
  return reading;
}

const PROMPT = { option: /^\s*(❯\s*)?\d+\.\s/, selectedFirst: /^\s*❯\s*1\.\s/, rule: /^\s*─{8,}\s*$/, call: /^\s*●\s/ };

/**
 * Claude's permission dialog: the tool call (`● Bash(touch x)`) above a rule, the question, a
 * select list whose first option is `1. Yes`, and `Esc to cancel`; Enter takes the highlighted one.
 */
export function readClaudePrompt({ plain }: ScreenText): PromptRead | undefined {
  const ask = lastIndexMatching(plain, CLAUDE_SCREEN.permission);
  if (ask < 0) return readClaudeQuestion(plain);
  const foot = firstIndexFrom(plain, CLAUDE_SCREEN.permissionFooter, ask + 1);
  if (foot < 0) return undefined;
  const rule = lastIndexMatching(plain.slice(0, ask), PROMPT.rule);
  const top = rule >= 0 ? rule + 1 : Math.max(0, ask - 12);
  // The tool-call line above the rule says what runs; include it when near.
  const call = rule > 0 ? lastIndexMatching(plain.slice(Math.max(0, rule - 4), rule), PROMPT.call) : -1;
  const start = call >= 0 ? Math.max(0, rule - 4) + call : top;
  const asked = plain.slice(start, ask + 1).filter((l) => !PROMPT.rule.test(l));
  const approveReady = plain
    .slice(ask + 1, foot)
    .filter((l) => PROMPT.option.test(l))
    .some((l) => PROMPT.selectedFirst.test(l));
  return {
    lines: tidyLines(plain.slice(start, foot + 1).filter((l) => !PROMPT.rule.test(l))),
    asked,
    approveReady,
    options: readOptions(plain.slice(ask + 1, foot)),
    ...(approveReady ? {} : { why: 'the highlighted option is not "1. Yes" (it was moved in the terminal)' }),
  };
}

const QUESTION = { footer: /Enter to select · ↑\/↓ to navigate/, header: /^\s*[☐☒✔]\s+\S/ };

/**
 * Claude's question (AskUserQuestion): a `☐ <header>` line, the question, numbered options (each
 * with a description line below), `Type something.` for an answer of one's own, a rule, `Chat
 * about this`, and the `Enter to select · ↑/↓ to navigate` footer. A digit picks its option.
 */
export function readClaudeQuestion(plain: readonly string[]): PromptRead | undefined {
  const foot = lastIndexMatching(plain, QUESTION.footer);
  if (foot < 0) return undefined;
  const head = lastIndexMatching(plain.slice(0, foot), QUESTION.header);
  if (head < 0) return undefined;
  const block = plain.slice(head, foot + 1).filter((l) => !PROMPT.rule.test(l));
  const options = readOptions(block);
  // The question and its options' labels are what is asked (not which one is highlighted).
  const asked = [
    ...block.filter((l) => !PROMPT.option.test(l)).slice(0, 3),
    ...options.map((o) => `${o.n}. ${o.label}`),
  ];
  return { lines: tidyLines(block), asked, approveReady: false, options, kind: 'question' };
}
