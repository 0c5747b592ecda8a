import { type Failure, fail, isFailure } from '../../../shared/errors';
import { type ChangesSource, type GitPort, locateRepo } from '../git';
import type { SeatRow } from '../store';

/**
 * The working tree a seat's changes are read from: its own worktree (against the merge base with
 * its base branch), or the checkout its cwd is in (against HEAD). Keys name a tree and a
 * repository across hosts, so two seats in one tree are seen as sharing it.
 */
export interface SeatTree extends ChangesSource {
  host: string;
  /** `<host>\0<top>`: one entry per working tree, however many seats work in it. */
  key: string;
  /** `<host>\0<common git folder>`: trees of one repository share it. */
  repoKey: string;
}

/**
 * A folder on this machine with no `.git` in it or above it is in no repository: said without
 * running git, so a rig of shell seats in plain folders costs no process a seat.
 */
export function outsideAnyRepo(exists: (path: string) => boolean, dir: string): boolean {
  for (let d = dir; ; ) {
    if (exists(`${d === '/' ? '' : d}/.git`)) return false;
    const up = d.replace(/\/[^/]*$/, '') || '/';
    if (up === d) return true;
    d = up;
  }
}

export async function resolveSeatTree(
  git: GitPort,
  seat: SeatRow,
  exists?: (path: string) => boolean,
): Promise<SeatTree | Failure> {
  const dir = seat.worktree?.path ?? seat.cwd;
  if (!seat.worktree && seat.host === 'local' && exists && dir.startsWith('/') && outsideAnyRepo(exists, dir))
    return fail('NOT_A_REPO', `${dir} is not inside a git repository`, {
      hint: 'Its changes show once the folder is in a repository (git init, or clone one).',
      evidence: { cwd: dir },
    });
  const repo = await locateRepo(git, dir);
  if (isFailure(repo)) {
    if (!seat.worktree) return repo;
    return fail('WORKTREE_MISSING', `${seat.seat}'s worktree ${seat.worktree.path} cannot be read`, {
      hint: `Its commits are kept on branch ${seat.worktree.branch}. If the folder was deleted, run \`git worktree prune\` in ${seat.worktree.repo} and launch the seat again.`,
      evidence: { path: seat.worktree.path, branch: seat.worktree.branch, git: repo.message },
    });
  }
  return {
    host: seat.host,
    top: repo.top,
    gitDir: repo.gitDir,
    ...(seat.worktree ? { base: seat.worktree.base } : {}),
    key: `${seat.host}\0${repo.top}`,
    repoKey: `${seat.host}\0${repo.commonDir}`,
  };
}
