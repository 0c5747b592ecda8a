import { type Failure, fail } from '../../../shared/errors';
import type { GitPort } from './port';
import { runGit } from './run';

/** Where a folder sits in its repository. */
export interface RepoFacts {
  /** The working tree's top folder, as git resolves it (symlinks followed). */
  top: string;
  /** The folder's path inside the working tree (`packages/api/`), '' at the top. */
  prefix: string;
  /** The repository's shared git folder (its `.git` for every linked worktree). */
  commonDir: string;
  /** This working tree's own git folder (`.git/worktrees/<name>` for a linked one). */
  gitDir: string;
  /** The branch checked out there; undefined when HEAD is detached. */
  branch?: string;
}

/**
 * Two calls: the top, the prefix and both git folders of `cwd`'s repository. A folder outside any
 * repository (or inside a bare one, with no working tree) is `NOT_A_REPO`.
 */
export async function locateRepo(port: GitPort, cwd: string): Promise<RepoFacts | Failure> {
  const r = await runGit(port, cwd, [
    'rev-parse',
    '--path-format=absolute',
    '--show-toplevel',
    '--git-common-dir',
    '--absolute-git-dir',
    '--show-prefix',
  ]);
  if (!r.ok) return notARepo(cwd, r) ?? r;
  const lines = r.stdout.split('\n');
  // Four answers, one a line: a path that holds a newline cannot be told apart, and is refused.
  if (lines.length !== 5 || lines[4] !== '')
    return fail('GIT_FAILED', `the repository of ${cwd} has a path git cannot print on one line`);
  const [top, commonDir, gitDir, prefix] = lines as [string, string, string, string];
  // symbolic-ref answers on a branch with no commit yet too; 1 means HEAD is detached.
  const sym = await runGit(port, cwd, ['symbolic-ref', '-q', 'HEAD'], { okCodes: [0, 1] });
  if (!sym.ok) return sym;
  const head = sym.stdout.trim();
  return {
    top,
    prefix,
    commonDir,
    gitDir,
    ...(head.startsWith('refs/heads/') ? { branch: head.slice('refs/heads/'.length) } : {}),
  };
}

function notARepo(cwd: string, r: Failure): Failure | undefined {
  const said = String(r.evidence?.stderr ?? '');
  if (!/not a git repository|must be run in a work tree|cannot change to/i.test(said)) return undefined;
  return fail('NOT_A_REPO', `${cwd} is not inside a git repository with a working tree`, {
    hint: 'Point the seat’s cwd into a git repository (git init, or clone one), or drop `worktree:` from the spec.',
    evidence: { cwd, git: said },
  });
}
