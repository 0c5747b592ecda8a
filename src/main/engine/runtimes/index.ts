import { claudeCode } from './claude-code';
import { codex } from './codex';
import { gemini } from './gemini';
import { omo } from './omo';
import { omp } from './omp';
import { opencode } from './opencode';
import { pi } from './pi';
import { qwen } from './qwen';
import { shell } from './shell';
import type { RuntimeAdapter } from './types';

export * from './types';
export { claudeCode, codex, gemini, omo, omp, opencode, pi, qwen, shell };

export const RUNTIMES: readonly RuntimeAdapter[] = [claudeCode, codex, pi, opencode, gemini, qwen, omp, omo, shell];
export const RUNTIME_IDS: readonly string[] = RUNTIMES.map((r) => r.id);

export function runtimeById(id: string): RuntimeAdapter | undefined {
  return RUNTIMES.find((r) => r.id === id);
}

/** Runtimes that own conversations (everything but `shell`). */
export const AGENT_RUNTIMES: readonly RuntimeAdapter[] = RUNTIMES.filter((r) => r.conversations);

/**
 * Whether a seat of this runtime keeps conversations to guard, resume and fork. A runtime this
 * Rigdesk does not know is taken to keep them: custody's doubt stands for it.
 */
export function keepsConversations(runtime: string): boolean {
  return runtimeById(runtime)?.conversations ?? true;
}

/** The seat's own isolated config home, where its runtime's activity hooks go; undefined where none may. */
export function seatHookHome(
  adapter: Pick<RuntimeAdapter, 'installHooks' | 'homeEnvVar'> | undefined,
  seatEnv: Readonly<Record<string, string>>,
): string | undefined {
  return adapter?.installHooks && adapter.homeEnvVar ? seatEnv[adapter.homeEnvVar] : undefined;
}
