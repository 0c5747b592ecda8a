/** The git adapter: worktrees, changes, diffs and the merge, through one narrow port. */
export { type ChangesSource, literal, readChanges, readFileDiff } from './changes';
export { liveScratchFs } from './live-fs';
export { checkMerge, type MergeCheck, type MergeDone, mergeInto } from './merge';
export { branchNameProblem, branchOfRef, headsRef, seatBranch } from './names';
export type { ChangedFile, FileStatus, Status, StatusEntry, WorktreeEntry } from './parse';
export { execGitPort, type GitPort, localGitPort, type ScratchFs } from './port';
export { removeWorktree, type Removed, type RemoveWorktree } from './remove';
export { locateRepo, type RepoFacts } from './repo';
export { commitsAhead, readStatus } from './status';
export { type Ensured, type EnsureWorktree, ensureWorktree, listWorktrees, refExists, refOid } from './worktree';
