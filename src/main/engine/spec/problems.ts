import { fail, type ErrorCode, type Failure } from '../../../shared/errors';
import { formatPath } from './locate';
import { MAX_PROBLEMS } from './types';

/**
 * One thing wrong with a spec. Problems are collected (not thrown) so a person fixing a spec sees
 * several at once; the failure carries the first in its message and up to MAX_PROBLEMS in evidence.
 */
export interface Problem {
  code: ErrorCode;
  message: string;
  /** Field path; lines are derived from it unless `line` is already known (YAML syntax errors). */
  path?: readonly PropertyKey[];
  line?: number;
  extra?: Record<string, unknown>;
}

const HINTS: Partial<Record<ErrorCode, string>> = {
  SPEC_INVALID: 'Fix the spec at the line shown and load it again.',
  RUNTIME_UNKNOWN: 'Use one of the known runtimes listed in the message.',
  CWD_MISSING: "Create the folder or fix cwd (relative paths resolve from the spec file's folder).",
  NOT_A_REPO: 'Point cwd into a git repository (git init, or clone one), or drop `worktree:` for this member.',
};

export interface SpecFile {
  /** As the caller wrote it: messages read `demo.yaml:7: ...`. */
  shown: string;
  absolute: string;
}

/** Builds the Failure; `lineOf` maps a field path to a line when the problem has none. */
export function specFailure(
  file: SpecFile,
  problems: readonly Problem[],
  lineOf?: (path: readonly PropertyKey[]) => number,
): Failure {
  const placed = problems.map((p, index) => {
    const line = p.line ?? (p.path && lineOf ? lineOf(p.path) : undefined);
    const field = p.path && p.path.length > 0 ? formatPath(p.path) : null;
    return { p, index, line, field };
  });
  // Source order reads best; problems without a line keep their place at the front.
  placed.sort((a, b) => (a.line ?? 0) - (b.line ?? 0) || a.index - b.index);
  const render = (x: (typeof placed)[number]) =>
    `${file.shown}${x.line !== undefined ? `:${x.line}` : ''}: ${x.field !== null ? `${x.field}: ` : ''}${x.p.message}`;
  const first = placed[0];
  if (first === undefined) return fail('INTERNAL', `${file.shown}: spec rejected without a reason`);
  const listed = placed.slice(0, MAX_PROBLEMS).map((x) => ({
    code: x.p.code,
    line: x.line ?? null,
    field: x.field,
    message: render(x),
    ...x.p.extra,
  }));
  const more = placed.length > 1 ? ` (${placed.length} problems in all; see evidence.problems)` : '';
  return fail(first.p.code, render(first), {
    hint: `${HINTS[first.p.code] ?? 'Fix the spec and load it again.'}${more}`,
    evidence: {
      ...first.p.extra,
      file: file.absolute,
      line: first.line ?? null,
      field: first.field,
      problems: listed,
      problemCount: placed.length,
    },
  });
}
