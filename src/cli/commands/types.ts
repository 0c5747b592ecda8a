import type { z } from 'zod';
import type { AnswerOf, EngineCall, Method, REQUESTS } from '../../shared/contract';
import type { Ok, Result } from '../../shared/errors';
import type { ParsedArgs } from '../args';

/** A request the CLI is about to make, bound to how its answer reads to a person. */
export interface Prepared {
  readonly method: Method;
  /** The seat or rig the request names, whose events show its progress (asked only when followed). */
  target(): { seat?: string; rig?: string };
  /** Runs the request through `call`; `human` is how a successful answer reads to a person. */
  run(call: EngineCall): Promise<{ result: Result; human?: string }>;
}

/**
 * Binds a method, its params and its reader, so the params and the answer are typed by the
 * method name from the contract: no answer is read as a loose record. `target` is the seat or rig
 * the params name, unless given (`up` names its rig only inside the spec file, read only when a
 * command's progress is followed).
 */
export function prepare<M extends Method>(
  method: M,
  params: z.input<(typeof REQUESTS)[M]>,
  human: (answer: Ok<AnswerOf<M>>) => string,
  target = () => targetOf(params),
): Prepared {
  return {
    method,
    target,
    run: async (call) => {
      const result = await call(method, params);
      return result.ok ? { result, human: human(result) } : { result };
    },
  };
}

function targetOf(params: unknown): { seat?: string; rig?: string } {
  if (typeof params !== 'object' || params === null) return {};
  if ('seat' in params && typeof params.seat === 'string') return { seat: params.seat };
  if ('rig' in params && typeof params.rig === 'string') return { rig: params.rig };
  return {};
}

/** One CLI command: how its argv becomes a prepared, typed request. */
export interface CommandSpec {
  /** One line for `rigdesk --help`, starting with the command's synopsis. */
  usage: string;
  toRequest(a: ParsedArgs): Result<{ prepared: Prepared }>;
}

export type CommandTable = Record<string, CommandSpec>;
