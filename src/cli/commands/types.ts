import type { Result } from '../../shared/errors';
import type { ParsedArgs } from '../args';

/** One CLI command: how its argv becomes a contract request, and how its answer reads to a person. */
export interface CommandSpec {
  /** One line for `rigdesk --help`, starting with the command's synopsis. */
  usage: string;
  toRequest(a: ParsedArgs): Result<{ method: string; params: Record<string, unknown> }>;
  human(result: Record<string, unknown>): string;
}

export type CommandTable = Record<string, CommandSpec>;
