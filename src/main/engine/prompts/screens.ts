import { createHash } from 'node:crypto';
import type { PromptChoice } from '../../../shared/contract/app';
import { AGENT_RUNTIMES, runtimeById } from '../runtimes';
import type { PromptOption } from '../runtimes/types';

/**
 * A permission prompt as the person sees it, read by the seat's runtime adapter from its screen:
 * the lines to show as evidence, a fingerprint of what is being asked (so an answer given to one
 * prompt never lands on the next one), and whether the approve key would really approve.
 */
export interface PromptScreen {
  /** The prompt block, from the tool call it asks about to its footer. */
  lines: string[];
  /** 16 hex digits over the runtime and the asked-about lines (not the selection marker). */
  fingerprint: string;
  /** False when approve's key would pick something other than "yes" (the selection was moved). */
  approveReady: boolean;
  why?: string;
  /** What can be answered, each in the prompt's own words and with the keys that answer it. */
  offers: Offer[];
  kind: 'permission' | 'question';
}

export interface Offer {
  choice: PromptChoice;
  label: string;
  keys: string[];
  /** A question's option number. */
  option?: number;
}

/** The keys that answer a permission prompt, per runtime (the adapters' promptKeys). Runtimes not listed have none Rigdesk may send. */
export const PROMPT_KEYS: Readonly<Record<string, { approve: readonly string[]; deny: readonly string[] }>> =
  Object.fromEntries(AGENT_RUNTIMES.flatMap((a) => (a.promptKeys ? [[a.id, a.promptKeys]] : [])));

function fingerprint(runtime: string, asked: readonly string[]): string {
  return createHash('sha256')
    .update(`${runtime}\n${asked.map((l) => l.trimEnd()).join('\n')}`)
    .digest('hex')
    .slice(0, 16);
}

export function readPrompt(
  runtime: string,
  plain: readonly string[],
  styled: readonly string[] = [],
): PromptScreen | undefined {
  const p = runtimeById(runtime)?.readPrompt?.({ plain: [...plain], styled: [...styled] });
  return (
    p && {
      lines: p.lines,
      fingerprint: fingerprint(runtime, p.asked),
      approveReady: p.approveReady,
      ...(p.why ? { why: p.why } : {}),
      offers:
        p.kind === 'question'
          ? questionOffers(PROMPT_KEYS[runtime], p.options ?? [], p.otherKeys)
          : offersOf(PROMPT_KEYS[runtime], p.options ?? [], p.approveReady),
      kind: p.kind ?? 'permission',
    }
  );
}

const ALWAYS = /^yes,? and\b/i;
const YES = /^yes\b/i;
const NO = /^no\b/i;

/**
 * The answers a prompt offers, named from its own options: allow once (the runtime's approve
 * keys, which take the highlighted first option), allow always (the option that widens the
 * approval, by its own key), deny (the runtime's deny keys) and deny with a message (the same
 * refusal, then the message in the input box). No option is guessed: a prompt without a
 * "Yes, and …" option offers no allow_always.
 */
export function offersOf(
  keys: { approve: readonly string[]; deny: readonly string[] } | undefined,
  options: readonly PromptOption[],
  approveReady: boolean,
): Offer[] {
  if (!keys) return [];
  const yes = options.find((o) => YES.test(o.label) && !ALWAYS.test(o.label));
  const always = options.find((o) => ALWAYS.test(o.label));
  const no = options.find((o) => NO.test(o.label));
  const out: Offer[] = [];
  if (approveReady) out.push({ choice: 'approve', label: yes?.label ?? 'Yes', keys: [...keys.approve] });
  if (always) out.push({ choice: 'allow_always', label: always.label, keys: [always.key] });
  out.push({ choice: 'deny', label: no?.label ?? 'No', keys: [...keys.deny] });
  out.push({ choice: 'deny_with_message', label: 'No, and say what to do instead', keys: [...keys.deny] });
  return out;
}

/**
 * The tool a prompt block asks about, for a one-word reason ("permission: Bash"): Claude's and
 * Pi's tool-call line (`● Bash(...)`), or Codex's command approval.
 */
export function toolOf(lines: readonly string[]): string | undefined {
  for (const l of lines) {
    const call = /^\s*[●•⏺]\s*([A-Za-z][\w.-]{0,40})\(/.exec(l);
    if (call) return call[1];
    if (/run the following command/i.test(l)) return 'command';
  }
  return undefined;
}

const OWN_ANSWER = /^type something/i;
const NOT_AN_ANSWER = /^chat about this/i;

/**
 * A question's answers: each option by its own key, `other` (the option that takes an answer of
 * one's own, then the text; or the runtime's own keys for it), and `deny` (the runtime's cancel key).
 */
export function questionOffers(
  keys: { approve: readonly string[]; deny: readonly string[] } | undefined,
  options: readonly PromptOption[],
  otherKeys?: readonly string[],
): Offer[] {
  if (!keys) return [];
  const out: Offer[] = [];
  for (const o of options) {
    if (NOT_AN_ANSWER.test(o.label)) continue;
    if (OWN_ANSWER.test(o.label)) out.push({ choice: 'other', label: OTHER_LABEL, keys: [o.key] });
    else out.push({ choice: 'option', label: o.label, keys: [o.key], option: o.n });
  }
  if (otherKeys) out.push({ choice: 'other', label: OTHER_LABEL, keys: [...otherKeys] });
  out.push({ choice: 'deny', label: 'Cancel', keys: [...keys.deny] });
  return out;
}

const OTHER_LABEL = 'Other (type an answer)';
