import { createHash } from 'node:crypto';
import { AGENT_RUNTIMES, runtimeById } from '../runtimes';

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
    }
  );
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
