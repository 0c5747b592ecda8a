import { type Failure, fail } from '../../../shared/errors';
import type { ExecResult } from '../deps';
import type { GitPort, GitRunOptions } from './port';

/**
 * One git call in one folder: `git -C <dir> <args>`. Paths and refs go in as argv elements, after
 * `--` where git takes one; a call that did not exit with one of `okCodes` is a `GIT_FAILED`
 * failure carrying git's own last lines, so a refusal says what git said.
 */
export interface GitCall extends GitRunOptions {
  /** Exit codes that are answers, not failures (merge-tree's 1 means "conflicts"). */
  okCodes?: readonly number[];
}

export type GitOut = { ok: true; stdout: string; code: number };

export async function runGit(
  port: GitPort,
  dir: string,
  args: readonly string[],
  call: GitCall = {},
): Promise<GitOut | Failure> {
  const r = await port.git(['-C', dir, ...args], call);
  const ok = call.okCodes ?? [0];
  if (r.code !== null && ok.includes(r.code)) return { ok: true, stdout: r.stdout, code: r.code };
  return gitFailure(args, r);
}

export function gitFailure(args: readonly string[], r: ExecResult): Failure {
  const said = tail(r.stderr || r.stdout);
  const what = r.spawnError
    ? `git could not be run: ${r.spawnError}`
    : r.timedOut
      ? 'git took too long and was stopped'
      : `git ${args[0] ?? ''} failed${said ? `: ${said}` : ''}`;
  return fail('GIT_FAILED', what, {
    hint: r.spawnError?.startsWith('ENOENT') ? 'Install git (2.38 or later) and try again.' : undefined,
    evidence: { args: [...args], code: r.code, stderr: tail(r.stderr, 2000) },
  });
}

/** The last lines of what a process printed, at most `max` characters. */
export function tail(text: string, max = 400): string {
  const t = text.trim();
  return t.length <= max ? t : `…${t.slice(t.length - max + 1)}`;
}

/** NUL-separated fields, without the empty one after a final NUL. */
export function nulFields(out: string): string[] {
  const parts = out.split('\0');
  if (parts.length > 0 && parts[parts.length - 1] === '') parts.pop();
  return parts;
}
