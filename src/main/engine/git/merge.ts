import { type Failure, fail } from '../../../shared/errors';
import { headsRef } from './names';
import { parseMergeTree } from './parse';
import type { GitPort } from './port';
import { runGit } from './run';
import { listWorktrees, refOid } from './worktree';

/**
 * The merge gate's git part. The check merges in memory (`git merge-tree --write-tree`): no
 * working tree, index or ref is touched. The merge then writes the merged tree as a commit and
 * moves the base to it in one step that either happens whole or not at all: a compare-and-swap of
 * the ref, or, where the base is checked out, a fast-forward of that working tree (git checks
 * every file before it writes one, and refuses over local changes it would overwrite).
 */

export type MergeCheck =
  | { ok: true; clean: true; tree: string; intoOid: string; branchOid: string; upToDate: boolean }
  | { ok: true; clean: false; conflicts: string[]; intoOid: string; branchOid: string };

export async function checkMerge(
  port: GitPort,
  dir: string,
  into: string,
  branch: string,
): Promise<MergeCheck | Failure> {
  const intoOid = await refOid(port, dir, headsRef(into));
  const branchOid = await refOid(port, dir, headsRef(branch));
  if (!intoOid || !branchOid)
    return fail('GIT_FAILED', `branch ${intoOid ? branch : into} does not exist in the repository of ${dir}`);
  const anc = await runGit(port, dir, ['merge-base', '--is-ancestor', branchOid, intoOid], { okCodes: [0, 1] });
  if (!anc.ok) return anc;
  if (anc.code === 0) return { ok: true, clean: true, tree: '', intoOid, branchOid, upToDate: true };
  const r = await runGit(
    port,
    dir,
    ['merge-tree', '--write-tree', '-z', '--name-only', '--no-messages', intoOid, branchOid],
    { okCodes: [0, 1] },
  );
  if (!r.ok) return r;
  const parsed = parseMergeTree(r.stdout);
  if (r.code === 1) return { ok: true, clean: false, conflicts: parsed.conflicts, intoOid, branchOid };
  return { ok: true, clean: true, tree: parsed.tree, intoOid, branchOid, upToDate: false };
}

export interface MergeDone {
  ok: true;
  /** The merge commit, or the base's commit when there was nothing to merge. */
  commit: string;
  into: string;
  upToDate: boolean;
  /** The working tree of the base that was fast-forwarded, when the base is checked out. */
  updatedTree?: string;
}

export async function mergeInto(
  port: GitPort,
  dir: string,
  o: { into: string; branch: string; message: string },
): Promise<MergeDone | Failure> {
  const check = await checkMerge(port, dir, o.into, o.branch);
  if (!check.ok) return check;
  if (!check.clean) return conflictFailure(o, check.conflicts);
  if (check.upToDate) return { ok: true, commit: check.intoOid, into: o.into, upToDate: true };
  const made = await runGit(
    port,
    dir,
    ['commit-tree', check.tree, '-p', check.intoOid, '-p', check.branchOid, '-F', '-'],
    {
      input: `${o.message}\n`,
    },
  );
  if (!made.ok) return identityHint(made);
  const commit = made.stdout.trim();
  const trees = await listWorktrees(port, dir);
  if (!Array.isArray(trees)) return trees;
  const holder = trees.find((t) => t.branch === headsRef(o.into) && !t.prunable && !t.bare);
  if (holder) return fastForward(port, holder.path, o.into, check.intoOid, commit);
  const moved = await runGit(port, dir, ['update-ref', '-m', o.message, headsRef(o.into), commit, check.intoOid]);
  if (!moved.ok) return baseMoved(o.into, moved);
  return { ok: true, commit, into: o.into, upToDate: false };
}

async function fastForward(
  port: GitPort,
  tree: string,
  into: string,
  was: string,
  commit: string,
): Promise<MergeDone | Failure> {
  const head = await refOid(port, tree, 'HEAD');
  if (head !== was) return baseMoved(into);
  const r = await runGit(port, tree, ['merge', '--ff-only', '--no-edit', '--quiet', commit]);
  if (r.ok) return { ok: true, commit, into, upToDate: false, updatedTree: tree };
  const said = String(r.evidence?.stderr ?? '');
  if (/would be overwritten|not uptodate|untracked working tree files/i.test(said))
    return fail('WORKTREE_DIRTY', `${into} is checked out at ${tree}, whose local changes the merge would overwrite`, {
      hint: `Commit or stash the changes in ${tree}, then merge again. Nothing was changed.`,
      evidence: { tree, git: said },
    });
  return (await refOid(port, tree, 'HEAD')) === was ? r : baseMoved(into, r);
}

function conflictFailure(o: { into: string; branch: string }, files: string[]): Failure {
  return fail('MERGE_CONFLICT', `${o.branch} does not merge cleanly into ${o.into}: ${files.length} file(s) conflict`, {
    hint: `Nothing was changed. Ask the seat to merge ${o.into} into its branch and settle ${files.slice(0, 3).join(', ')}${files.length > 3 ? ', …' : ''}, then merge again.`,
    evidence: { files, into: o.into, branch: o.branch },
  });
}

function baseMoved(into: string, cause?: Failure): Failure {
  return fail('TARGET_CHANGED', `${into} moved while the merge was being made; nothing was changed`, {
    hint: 'Merge again: the check runs on the new base.',
    evidence: cause ? { git: cause.message } : undefined,
  });
}

function identityHint(f: Failure): Failure {
  if (!/tell me who you are|empty ident/i.test(String(f.evidence?.stderr ?? ''))) return f;
  return {
    ...f,
    hint: 'Set user.name and user.email in the repository (git config) so the merge commit has an author.',
  };
}
