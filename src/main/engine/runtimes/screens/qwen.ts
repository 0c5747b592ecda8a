import { lastIndexMatching, startsDim, type ScreenReading, type ScreenText } from '../types';

/**
 * Qwen Code's screen (observed on 0.15.10; pinned by test/agents/qwen-real.test.ts). The input box
 * is a `> ` line between two full-width `────` rules, with `? for shortcuts` under it. A turn shows
 * a spinner line whose witty phrase changes every time, so only its suffix is a signature:
 * `(3s · ↓ 10 tokens · esc to cancel)`. A permission prompt replaces the box with a bordered
 * dialog and `Waiting for user confirmation...`. The pane title is `Qwen - <folder>` in every
 * state, so it says nothing.
 *
 * A 429 with a short Retry-After prints `✕ [API Error: 429 …] (Retrying in 53s…)` above the
 * spinner; with a long one Qwen shows the spinner only, for minutes, exactly as a slow model
 * would. Both show the spinner with no token count (`(14s · esc to cancel)`), while a streaming
 * reply or a running tool counts tokens (`↓ 8 tokens`, `↑ 1 tokens`). So a spinner that has
 * counted nothing for `silentAfterS` is not claimed as working: the reading leaves activity
 * unknown and says why (a hidden 429 cannot be told from a model that is slow to answer).
 */
export const QWEN_SCREEN = {
  rule: /^─{8,}\s*$/,
  prompt: /^> ?/,
  placeholder: /^>\s+Type your message or @path\/to\/file\s*$/,
  working: /\besc to cancel\)\s*$/,
  /** `(4s · esc to cancel)`, `(1m 30s · esc to cancel)`: elapsed, and no token count. */
  silentSpinner: /\((?:(\d+)h )?(?:(\d+)m ?)?(?:(\d+)s)? · esc to cancel\)\s*$/,
  silentAfterS: 30,
  idle: /\? for shortcuts/,
  permission: /Waiting for user confirmation\.\.\./,
  permissionAsk: /Allow execution of: |Yes, allow once|Apply this change\?|Allow execution\?/,
  usageLimit: /\[API Error: 429\b|↻ Retrying in \d+ seconds/,
  /** A turn the person sent, as the history shows it (the input box's own `> ` is at column 0). */
  userTurn: /^ {1,2}> \S/,
  /** Qwen draws its cursor after the typed text as a zero-width space. */
  cursor: /\u200b/g,
} as const;

export function readQwenScreen({ plain, styled }: ScreenText): ScreenReading {
  const tail = plain.slice(-25);
  if (
    tail.some((l) => QWEN_SCREEN.permission.test(l)) ||
    (tail.some((l) => QWEN_SCREEN.permissionAsk.test(l)) && !tail.some((l) => QWEN_SCREEN.idle.test(l)))
  ) {
    return { activity: 'working', needsInput: 'permission', matched: ['Waiting for user confirmation...'] };
  }
  const b = lastIndexMatching(plain, QWEN_SCREEN.rule);
  const a = b > 0 ? lastIndexMatching(plain.slice(0, b), QWEN_SCREEN.rule) : -1;
  if (a < 0) return {};
  const box = plain.slice(a + 1, b);
  const first = box[0] ?? '';
  let draft: string | undefined;
  if (QWEN_SCREEN.prompt.test(first)) {
    const placeholder = QWEN_SCREEN.placeholder.test(first) || startsDim(styled[a + 1] ?? '', '>');
    const typed = [first.replace(QWEN_SCREEN.prompt, ''), ...box.slice(1).map((l) => l.replace(/^ {2}/, ''))]
      .join('\n')
      .replace(QWEN_SCREEN.cursor, '')
      .trim();
    draft = placeholder ? '' : typed;
  }
  // The spinner sits just above the box (a line or two of padding between).
  const above = plain.slice(Math.max(0, a - 4), a);
  const spin = above.find((l) => QWEN_SCREEN.working.test(l));
  // Only what came after the last turn the person sent counts: an old error is history.
  const lastUser = lastIndexMatching(plain.slice(0, a), QWEN_SCREEN.userTurn);
  const limit = plain.slice(Math.max(lastUser, 0), a).join('\n').match(QWEN_SCREEN.usageLimit);
  const silent = spin ? silentSeconds(spin) : undefined;
  if (!limit && silent !== undefined && silent >= QWEN_SCREEN.silentAfterS) {
    const why = `spinner for ${silent}s with no token count: a rate limit (429) Qwen retries silently cannot be told from a slow model`;
    return draft !== undefined ? { draft, matched: [why] } : { matched: [why] };
  }
  const reading: ScreenReading = {
    activity: spin ? 'working' : 'idle',
    matched: [
      spin
        ? '· esc to cancel)'
        : QWEN_SCREEN.idle.test(plain.slice(b + 1).join('\n'))
          ? '? for shortcuts'
          : 'input box, no spinner',
    ],
  };
  if (draft !== undefined) reading.draft = draft;
  if (limit) {
    reading.needsInput = 'usage_limit';
    reading.matched = [limit[0]];
  }
  return reading;
}

/** Seconds on a spinner that shows no token count, or undefined when it counts tokens. */
function silentSeconds(line: string): number | undefined {
  const m = QWEN_SCREEN.silentSpinner.exec(line);
  if (!m || (m[1] ?? m[2] ?? m[3]) === undefined) return undefined;
  return Number(m[1] ?? 0) * 3600 + Number(m[2] ?? 0) * 60 + Number(m[3] ?? 0);
}

/**
 * Qwen's permission dialog (0.15.10): a `╭──╮` box holding `?  Shell <cmd>`, the command, the
 * question (`Allow execution of: 'touch'?`) and a numbered list whose selection is `› `, then
 * `Waiting for user confirmation...` under it. Enter takes the selected option; `1. Yes, allow
 * once` is selected when the dialog opens. Escape is "4. No, suggest changes (esc)".
 */
export const QWEN_PROMPT = {
  top: /^\s*╭─/,
  bottom: /^\s*╰─/,
  option: /^\s*(›\s*)?\d+\.\s/,
  yesSelected: /^\s*›\s*1\.\s+Yes\b/,
  keys: { approve: ['Enter'], deny: ['Escape'] },
} as const;

export function readQwenPrompt(
  plain: readonly string[],
): { lines: string[]; asked: string[]; approveReady: boolean; why?: string } | undefined {
  const wait = lastIndexMatching(plain, QWEN_SCREEN.permission);
  if (wait < 0) return undefined;
  const bottom = lastIndexMatching(plain.slice(0, wait), QWEN_PROMPT.bottom);
  const top = bottom > 0 ? lastIndexMatching(plain.slice(0, bottom), QWEN_PROMPT.top) : -1;
  if (top < 0) return undefined;
  const inner = plain.slice(top + 1, bottom).map((l) => l.replace(/^\s*│/, '').replace(/│\s*$/, '').trimEnd());
  const firstOption = inner.findIndex((l) => QWEN_PROMPT.option.test(l));
  const asked = inner
    .slice(0, firstOption < 0 ? inner.length : firstOption)
    .filter((l) => l.trim() !== '')
    .map((l) => l.replace(/\s+←$/, ''));
  const approveReady = inner.some((l) => QWEN_PROMPT.yesSelected.test(l));
  return {
    lines: plain.slice(top, wait + 1).map((l) => l.trimEnd()),
    asked,
    approveReady,
    ...(approveReady ? {} : { why: 'the selected option is not "1. Yes, allow once" (it was moved in the terminal)' }),
  };
}
