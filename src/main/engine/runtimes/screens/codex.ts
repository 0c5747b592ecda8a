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
 * Codex's screen (observed on 0.171.0): the composer is the last `› ` line; its placeholder
 * (`Ask Codex to do anything`, and others) is drawn dim. `• Working (Ns • esc to interrupt)` shows
 * only before the first token and while a tool runs, so a stream in progress looks idle here: the
 * rollout's task_started/task_complete is the stronger evidence for that.
 */
export const CODEX_SCREEN = {
  composer: /^› ?/,
  placeholder: /^› Ask Codex to do anything\s*$/,
  working: /[•◦] Working \(\d+s • esc to interrupt\)/,
  permission: /Would you like to (run the following command|make the following edits)\?/,
  permissionFooter: /Press enter to confirm or esc to cancel/,
  usageLimit: /You’ve hit your usage limit|You've hit your usage limit/,
  trust: /Do you trust the contents of this directory\?|Trust this folder\?/,
  login: /Sign in with ChatGPT|Provide your own API key/,
  conversationBusy: /This conversation is open in another app/,
} as const;

export function readCodexScreen({ plain, styled }: ScreenText): ScreenReading {
  const text = plain.join('\n');
  if (CODEX_SCREEN.permission.test(text) && CODEX_SCREEN.permissionFooter.test(text))
    return { needsInput: 'permission', matched: [text.match(CODEX_SCREEN.permission)![0]] };
  if (CODEX_SCREEN.trust.test(text)) return { needsInput: 'trust_dialog', matched: ['trust dialog'] };
  if (CODEX_SCREEN.login.test(text)) return { needsInput: 'login', matched: ['login dialog'] };
  if (CODEX_SCREEN.conversationBusy.test(text))
    return { needsInput: 'error', matched: ['This conversation is open in another app'] };
  const c = lastIndexMatching(plain, CODEX_SCREEN.composer);
  if (c < 0) return CODEX_SCREEN.working.test(text) ? { activity: 'working', matched: ['Working'] } : {};
  const line = plain[c]!;
  const typed = line.replace(CODEX_SCREEN.composer, '').trim();
  const draft = typed && !CODEX_SCREEN.placeholder.test(line) && !startsDim(styled[c] ?? '', '› ') ? typed : '';
  const working = plain.slice(Math.max(0, c - 4), c).some((l) => CODEX_SCREEN.working.test(l));
  const reading: ScreenReading = {
    activity: working ? 'working' : 'idle',
    draft,
    matched: [working ? 'Working (… esc to interrupt)' : 'composer'],
  };
  if (!working) {
    const lastUser = lastIndexMatching(plain.slice(0, c), /^› \S/);
    const since = plain.slice(Math.max(lastUser, 0), c).join('\n');
    if (CODEX_SCREEN.usageLimit.test(since)) {
      reading.needsInput = 'usage_limit';
      reading.matched = ['You’ve hit your usage limit'];
    }
  }
  return reading;
}

/**
 * Codex's approval: `• Running <cmd>`, the question, Environment/Reason/`$ <cmd>`, then
 * `› 1. Yes, proceed (y)` … and the footer. `y` approves whatever is highlighted.
 */
export function readCodexPrompt({ plain }: ScreenText): PromptRead | undefined {
  const ask = lastIndexMatching(plain, CODEX_SCREEN.permission);
  if (ask < 0) return undefined;
  const foot = firstIndexFrom(plain, CODEX_SCREEN.permissionFooter, ask + 1);
  if (foot < 0) return undefined;
  const run = lastIndexMatching(plain.slice(Math.max(0, ask - 4), ask), /^\s*•\s/);
  const start = run >= 0 ? Math.max(0, ask - 4) + run : ask;
  const firstOption = firstIndexFrom(plain, /^\s*(›\s*)?\d+\.\s/, ask + 1);
  const asked = plain
    .slice(start, firstOption < 0 || firstOption > foot ? foot : firstOption)
    .filter((l) => l.trim() !== '');
  return {
    lines: tidyLines(plain.slice(start, foot + 1)),
    asked,
    approveReady: true,
    options: readOptions(plain.slice(ask + 1, foot)),
  };
}
