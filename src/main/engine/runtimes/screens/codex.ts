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
  question: /^\s*Question \d+\/\d+ \(/,
  questionFooter: /enter to submit answer/,
} as const;

/** The screen's words with a narrow pane's wrapping taken out (a phrase may span lines). */
const unwrapped = (plain: readonly string[]): string => plain.map((l) => l.trim()).join(' ');

/** The line where `re` matches, read with up to two of the next lines joined (a wrapped phrase). */
function wrappedIndex(plain: readonly string[], re: RegExp, from: number, last: boolean): number {
  const hit = (i: number) =>
    re.test(unwrapped(plain.slice(i, i + 3))) && !re.test(unwrapped(plain.slice(i + 1, i + 3)));
  if (last) {
    for (let i = plain.length - 1; i >= from; i--) if (hit(i)) return i;
  } else for (let i = from; i < plain.length; i++) if (hit(i)) return i;
  return -1;
}

/** Each numbered option with the lines it wrapped onto joined to it (so `(p)` ends its own line). */
function joinWrapped(lines: readonly string[]): string[] {
  const out: string[] = [];
  for (const l of lines) {
    if (/^\s*(›\s*)?\d{1,2}\./.test(l) || out.length === 0) out.push(l);
    else if (l.trim() !== '') out[out.length - 1] = `${out[out.length - 1]!.trimEnd()} ${l.trim()}`;
  }
  return out;
}

export function readCodexScreen({ plain, styled }: ScreenText): ScreenReading {
  const text = plain.join('\n');
  const flat = unwrapped(plain);
  if (CODEX_SCREEN.permission.test(flat) && CODEX_SCREEN.permissionFooter.test(flat))
    return { needsInput: 'permission', matched: [flat.match(CODEX_SCREEN.permission)![0]] };
  if (CODEX_SCREEN.questionFooter.test(text) && plain.some((l) => CODEX_SCREEN.question.test(l)))
    return { needsInput: 'question', matched: ['Question … enter to submit answer'] };
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
  // A narrow pane wraps the question and the footer: each is found with its next lines joined.
  const ask = wrappedIndex(plain, CODEX_SCREEN.permission, 0, true);
  if (ask < 0) return readCodexQuestion(plain);
  const footStart = wrappedIndex(plain, CODEX_SCREEN.permissionFooter, ask + 1, false);
  if (footStart < 0) return undefined;
  const foot = Math.min(plain.length - 1, footStart + (CODEX_SCREEN.permissionFooter.test(plain[footStart]!) ? 0 : 1));
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
    options: readOptions(joinWrapped(plain.slice(ask + 1, footStart))),
  };
}

const HIGHLIGHT = /^\s*›\s*\d{1,2}\./;
const OPTION_HEAD = /^(\s*(?:›\s*)?)(\d{1,2})\.\s+/;

/**
 * Each option's label without its description column (`1. Red      the fake server's Red`), with
 * the label's own wrapped lines in a narrow pane (`3. None of the` then `   above`) put back.
 */
function labelsOf(block: readonly string[]): Map<number, string> {
  const out = new Map<number, string>();
  let cur: { n: number; from: number; to: number } | undefined;
  for (const l of block) {
    const m = OPTION_HEAD.exec(l);
    if (m) {
      const from = m[0].length;
      const gap = /\s{2,}/.exec(l.slice(from));
      cur = { n: Number(m[2]), from, to: gap ? from + gap.index : l.length };
      out.set(cur.n, l.slice(from, cur.to).trim());
    } else if (cur && l.slice(0, cur.from).trim() === '') {
      // A wrapped line is blank left of the label's column; anything else (the footer) ends it.
      const more = l.slice(cur.from, cur.to).trim();
      if (more) out.set(cur.n, `${out.get(cur.n)} ${more}`);
    } else cur = undefined;
  }
  return out;
}
const NONE_OF_THE_ABOVE = /^none of the above$/i;

/**
 * Codex's question (request_user_input): `Question 1/1 (1 unanswered)`, the question, numbered
 * options (`› 1. Red   <its description>`), Codex's own `None of the above` (whose notes, opened
 * by Tab, take an answer in one's own words) and the `enter to submit answer` footer. A digit
 * picks its option and submits at once; an answer of one's own moves the highlight to `None of the
 * above` and opens its notes, so the highlighted line is part of what the fingerprint covers.
 */
export function readCodexQuestion(plain: readonly string[]): PromptRead | undefined {
  const head = lastIndexMatching(plain, CODEX_SCREEN.question);
  if (head < 0) return undefined;
  const foot = firstIndexFrom(plain, CODEX_SCREEN.questionFooter, head + 1);
  if (foot < 0) return undefined;
  const block = plain.slice(head, foot + 1).filter((l) => l.trim() !== '');
  const options = readOptions(block).map((o) => ({ ...o, label: labelsOf(block).get(o.n) ?? o.label }));
  const at = options.findIndex((o) => block.some((l) => HIGHLIGHT.test(l) && l.includes(`${o.n}.`)));
  const none = options.findIndex((o) => NONE_OF_THE_ABOVE.test(o.label));
  const moves = none >= 0 && at >= 0 ? none - at : undefined;
  const other =
    moves === undefined ? undefined : [...Array<string>(Math.abs(moves)).fill(moves > 0 ? 'Down' : 'Up'), 'Tab'];
  return {
    lines: tidyLines(block),
    asked: block.map((l) => l.trimEnd()),
    approveReady: false,
    options,
    kind: 'question',
    ...(other ? { otherKeys: other } : {}),
  };
}
