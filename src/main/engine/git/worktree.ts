import { type Failure, fail } from '../../../shared/errors';
import { branchNameProblem, headsRef } from './names';
import { parseWorktreeList, type WorktreeEntry } from './parse';
import type { GitPort } from './port';
import type { RepoFacts } from './repo';
import { runGit } from './run';

/**
 * A seat's worktree: made once on its own branch, found again by that branch on every later
 * launch (restart, restore, another engine), never recreated behind the person's back.
 */

export async function listWorktrees(port: GitPort, repoDir: string): Promise<WorktreeEntry[] | Failure> {
  const r = await runGit(port, repoDir, ['worktree', 'list', '--porcelain', '-z']);
  return r.ok ? parseWorktreeList(r.stdout) : r;
}

export interface EnsureWorktree {
  repo: RepoFacts;
  /** Where the worktree goes: an absolute path with symlinks resolved, as git prints paths. */
  path: string;
  /** The seat's branch (`rigdesk/<rig>/<member>`). */
  branch: string;
  /** The base branch; the repository's current branch when none is named. */
  base?: string;
}

export type Ensured = { ok: true; path: string; branch: string; base: string; created: boolean };

export async function ensureWorktree(port: GitPort, o: EnsureWorktree): Promise<Ensured | Failure> {
  const base = o.base ?? o.repo.branch;
  if (base === undefined)
    return fail('SPEC_INVALID', `${o.repo.top} has no branch checked out (HEAD is detached)`, {
      hint: 'Name the base branch in the spec: `worktree: { base: main }`.',
    });
  const problem = branchNameProblem(base) ?? branchNameProblem(o.branch);
  if (problem) return fail('SPEC_INVALID', `branch name "${base}": ${problem}`);
  const list = await listWorktrees(port, o.repo.top);
  if (!Array.isArray(list)) return list;
  const found = seatEntry(list, o);
  if (found !== undefined) return found.ok ? { ...found, base } : found;
  if (!(await refExists(port, o.repo.top, headsRef(base))))
    return fail('SPEC_INVALID', `the base branch "${base}" does not exist in ${o.repo.top}`, {
      hint: 'Name an existing branch as `worktree: { base: … }`, or create it first.',
    });
  const hasBranch = await refExists(port, o.repo.top, headsRef(o.branch));
  const args = hasBranch
    ? ['worktree', 'add', '--', o.path, o.branch]
    : ['worktree', 'add', '--no-track', '-b', o.branch, '--', o.path, headsRef(base)];
  const r = await runGit(port, o.repo.top, args);
  if (!r.ok) {
    const said = String(r.evidence?.stderr ?? '');
    if (/already exists/.test(said))
      return fail('WORKTREE_TAKEN', `${o.path} already exists and is not the seat's worktree`, {
        hint: 'Move that folder away (Rigdesk never deletes it), then launch again.',
        evidence: { path: o.path, git: said },
      });
    return r;
  }
  return { ok: true, path: o.path, branch: o.branch, base, created: true };
}

/** The seat's branch already has a worktree: this one (reuse), a missing one, or another folder. */
function seatEntry(list: WorktreeEntry[], o: EnsureWorktree): Omit<Ensured, 'base'> | Failure | undefined {
  const hit = list.find((e) => e.branch === headsRef(o.branch));
  if (hit?.prunable)
    return fail('WORKTREE_MISSING', `the worktree of ${o.branch} at ${hit.path} was deleted`, {
      hint: `Its commits are kept on branch ${o.branch}. Run \`git worktree prune\` in ${o.repo.top} and launch again to make it anew from that branch.`,
      evidence: { path: hit.path, branch: o.branch },
    });
  if (hit && hit.path !== o.path)
    return fail('WORKTREE_TAKEN', `branch ${o.branch} is checked out at ${hit.path}, not in the seat's worktree`, {
      hint: `Switch ${hit.path} to another branch, then launch again.`,
      evidence: { path: hit.path, branch: o.branch },
    });
  if (hit) return { ok: true, path: hit.path, branch: o.branch, created: false };
  const other = list.find((e) => e.path === o.path);
  if (other)
    return fail(
      'WORKTREE_TAKEN',
      `${o.path} is a worktree of ${other.branch ?? 'a detached HEAD'}, not of ${o.branch}`,
      {
        evidence: { path: o.path, branch: other.branch },
      },
    );
  return undefined;
}

export async function refExists(port: GitPort, dir: string, ref: string): Promise<boolean> {
  const r = await runGit(port, dir, ['rev-parse', '--verify', '-q', `${ref}^{commit}`], { okCodes: [0, 1] });
  return r.ok && r.code === 0;
}

export async function refOid(port: GitPort, dir: string, ref: string): Promise<string | undefined> {
  const r = await runGit(port, dir, ['rev-parse', '--verify', '-q', `${ref}^{commit}`], { okCodes: [0, 1] });
  return r.ok && r.code === 0 ? r.stdout.trim() : undefined;
}
