import { type Failure, fail } from '../../../shared/errors';
import { headsRef } from './names';
import type { GitPort } from './port';
import { runGit } from './run';
import { commitsAhead, readStatus } from './status';
import { listWorktrees, refOid } from './worktree';

/**
 * Removes a seat's worktree only when nothing of the person's work goes with it: no uncommitted
 * change, no commit its base lacks. Otherwise `WORKTREE_DIRTY`, naming what would be lost, unless
 * forced. The branch goes too only when the base already holds all of it; a forced removal keeps
 * a branch with commits of its own.
 */
export interface RemoveWorktree {
  repoDir: string;
  branch: string;
  base: string;
  force?: boolean;
}

export type Removed = { ok: true; path: string; branch: string; branchDeleted: boolean; keptCommits: number };

export async function removeWorktree(port: GitPort, o: RemoveWorktree): Promise<Removed | Failure> {
  const list = await listWorktrees(port, o.repoDir);
  if (!Array.isArray(list)) return list;
  const hit = list.find((e) => e.branch === headsRef(o.branch));
  if (!hit) return fail('WORKTREE_NOT_FOUND', `branch ${o.branch} has no worktree`, { evidence: { branch: o.branch } });
  const ahead = await commitsAhead(port, o.repoDir, o.base, o.branch);
  if (!Array.isArray(ahead)) return ahead;
  const status = hit.prunable ? { entries: [] } : await readStatus(port, hit.path);
  if (!('entries' in status)) return status;
  const uncommitted = status.entries.map((e) => e.path);
  if (!o.force && (uncommitted.length > 0 || ahead.length > 0))
    return fail('WORKTREE_DIRTY', lostText(hit.path, uncommitted.length, ahead.length, o.base), {
      hint: 'Commit and merge the work first, or pass --force (the branch and its commits are kept).',
      evidence: { path: hit.path, uncommitted: uncommitted.slice(0, 50), commits: ahead },
    });
  // A folder deleted by hand is forgotten by the same command (it prunes that entry alone).
  const r = await runGit(port, o.repoDir, ['worktree', 'remove', ...(o.force ? ['--force'] : []), '--', hit.path]);
  if (!r.ok) return r;
  let branchDeleted = false;
  if (ahead.length === 0) {
    const oid = await refOid(port, o.repoDir, headsRef(o.branch));
    const del = oid ? await runGit(port, o.repoDir, ['update-ref', '-d', headsRef(o.branch), oid]) : undefined;
    branchDeleted = del?.ok === true;
  }
  return { ok: true, path: hit.path, branch: o.branch, branchDeleted, keptCommits: ahead.length };
}

function lostText(path: string, files: number, commits: number, base: string): string {
  const parts = [
    files ? `${files} uncommitted file${files === 1 ? '' : 's'}` : '',
    commits ? `${commits} commit${commits === 1 ? '' : 's'} ${base} lacks` : '',
  ].filter(Boolean);
  return `${path} has ${parts.join(' and ')}: not removed`;
}
