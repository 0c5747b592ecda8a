import { createHash } from 'node:crypto';
import { QWEN_PROMPT, readQwenPrompt } from '../runtimes/screens/qwen';
import { opencodePromptFingerprint, readOpencodePrompt } from '../runtimes/screens/opencode';
import { readGeminiPrompt } from '../runtimes/screens/gemini';

/**
 * A permission prompt as the person sees it, read from a pane's plain screen lines: the lines to
 * show as evidence, a fingerprint of what is being asked (so an answer given to one prompt never
 * lands on the next one), and whether the approve key would really approve.
 */
export interface PromptScreen {
  /** The prompt block, from the tool call it asks about to its footer. */
  lines: string[];
  /** 16 hex digits over the runtime and the asked-about lines (not the selection marker). */
  fingerprint: string;
  /** False when approve's key would pick something other than "yes" (the selection was moved). */
  approveReady: boolean;
  why?: string;
}

/** The keys that answer a permission prompt, per runtime. Runtimes not listed have none Rigdesk may send. */
export const PROMPT_KEYS: Readonly<Record<string, { approve: readonly string[]; deny: readonly string[] }>> = {
  // Claude Code 2.x: a select list whose first option ("Yes") is highlighted; Enter takes the
  // highlighted one, Escape cancels the tool call.
  'claude-code': { approve: ['Enter'], deny: ['Escape'] },
  // Codex: `y` is the "Yes, proceed" shortcut whatever is highlighted; Escape cancels.
  codex: { approve: ['y'], deny: ['Escape'] },
  // Qwen Code: Enter takes the selected option, "1. Yes, allow once" when the dialog opens.
  qwen: QWEN_PROMPT.keys,
  // OpenCode: `Allow once   Allow always   Reject`, opened on Allow once; Enter takes the highlighted
  // one (readPrompt checks it is still Allow once), Escape rejects.
  opencode: { approve: ['Enter'], deny: ['Escape'] },
  // Gemini CLI 0.61: a select list whose highlighted option (`●`) Enter takes; Escape cancels.
  gemini: { approve: ['Enter'], deny: ['Escape'] },
};

const RULE = /^\s*─{8,}\s*$/;

const CLAUDE = { ask: /Do you want to proceed\?/, footer: /Esc to cancel/, option: /^\s*(❯\s*)?\d+\.\s/, selectedFirst: /^\s*❯\s*1\.\s/ };
const CODEX = { ask: /Would you like to (run the following command|make the following edits)\?/, footer: /Press enter to confirm or esc to cancel/, option: /^\s*(›\s*)?\d+\.\s/ };

function lastIndex(lines: readonly string[], re: RegExp): number {
  for (let i = lines.length - 1; i >= 0; i--) if (re.test(lines[i]!)) return i;
  return -1;
}

function firstIndexFrom(lines: readonly string[], re: RegExp, from: number): number {
  for (let i = from; i < lines.length; i++) if (re.test(lines[i]!)) return i;
  return -1;
}

function fingerprint(runtime: string, asked: readonly string[]): string {
  return createHash('sha256').update(`${runtime}\n${asked.map((l) => l.trimEnd()).join('\n')}`).digest('hex').slice(0, 16);
}

const tidy = (lines: readonly string[]) => lines.map((l) => l.trimEnd());

export function readPrompt(runtime: string, plain: readonly string[], styled: readonly string[] = []): PromptScreen | undefined {
  if (runtime === 'opencode') {
    const p = readOpencodePrompt(plain, styled);
    return p && { lines: p.lines, fingerprint: opencodePromptFingerprint(p.asked), approveReady: p.approveReady, ...(p.why ? { why: p.why } : {}) };
  }
  if (runtime === 'qwen') {
    const q = readQwenPrompt(plain);
    return q && { lines: q.lines, fingerprint: fingerprint(runtime, q.asked), approveReady: q.approveReady, ...(q.why ? { why: q.why } : {}) };
  }
  if (runtime === 'claude-code') {
    const ask = lastIndex(plain, CLAUDE.ask);
    if (ask < 0) return undefined;
    const foot = firstIndexFrom(plain, CLAUDE.footer, ask + 1);
    if (foot < 0) return undefined;
    const rule = lastIndex(plain.slice(0, ask), RULE);
    const top = rule >= 0 ? rule + 1 : Math.max(0, ask - 12);
    // The tool-call line above the rule (`● Bash(touch x)`) says what runs; include it when near.
    const call = rule > 0 ? lastIndex(plain.slice(Math.max(0, rule - 4), rule), /^\s*●\s/) : -1;
    const start = call >= 0 ? Math.max(0, rule - 4) + call : top;
    const asked = plain.slice(start, ask + 1).filter((l) => !RULE.test(l));
    const options = plain.slice(ask + 1, foot).filter((l) => CLAUDE.option.test(l));
    const approveReady = options.some((l) => CLAUDE.selectedFirst.test(l));
    return {
      lines: tidy(plain.slice(start, foot + 1).filter((l) => !RULE.test(l))),
      fingerprint: fingerprint(runtime, asked),
      approveReady,
      ...(approveReady ? {} : { why: 'the highlighted option is not "1. Yes" (it was moved in the terminal)' }),
    };
  }
  if (runtime === 'codex') {
    // `• Running <cmd>`, the question, Environment/Reason/`$ <cmd>`, then `› 1. Yes, proceed (y)` …
    const ask = lastIndex(plain, CODEX.ask);
    if (ask < 0) return undefined;
    const foot = firstIndexFrom(plain, CODEX.footer, ask + 1);
    if (foot < 0) return undefined;
    const run = lastIndex(plain.slice(Math.max(0, ask - 4), ask), /^\s*•\s/);
    const start = run >= 0 ? Math.max(0, ask - 4) + run : ask;
    const firstOption = firstIndexFrom(plain, CODEX.option, ask + 1);
    const asked = plain.slice(start, firstOption < 0 || firstOption > foot ? foot : firstOption).filter((l) => l.trim() !== '');
    return { lines: tidy(plain.slice(start, foot + 1)), fingerprint: fingerprint(runtime, asked), approveReady: true };
  }
  if (runtime === 'gemini') {
    const p = readGeminiPrompt(plain);
    if (!p) return undefined;
    return { lines: p.lines, fingerprint: fingerprint(runtime, p.asked), approveReady: p.approveReady, ...(p.approveReady ? {} : { why: 'the highlighted option is not "1. Allow once" (it was moved in the terminal)' }) };
  }
  return undefined;
}
