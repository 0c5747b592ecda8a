import type { Failure } from '../../../shared/errors';
import { headsRef } from './names';
import { type ChangedFile, parseRawNumstat } from './parse';
import type { GitPort, Scratch } from './port';
import { type GitCall, runGit } from './run';

/**
 * What a working tree changed, committed and uncommitted together: against the merge base with
 * its base branch (a seat's worktree), or against HEAD (a seat in a plain checkout). Untracked
 * files count as added, with their lines: they are marked intent-to-add in a scratch copy of the
 * index, so the seat's own index is never written and an agent's `git add` never meets our lock.
 * Two git runs a refresh, whatever the number of files.
 */
export interface ChangesSource {
  /** The working tree's top folder. */
  top: string;
  /** Its own git folder (RepoFacts.gitDir), where its index is. */
  gitDir: string;
  /** The base branch; undefined: against HEAD. */
  base?: string;
}

export async function readChanges(port: GitPort, src: ChangesSource): Promise<ChangedFile[] | Failure> {
  return withScratchIndex(port, src, async (call) => {
    const r = await runGit(port, src.top, [...DIFF_OPTS, '--raw', '--numstat', '-z', ...against(src)], call);
    return r.ok ? parseRawNumstat(r.stdout) : r;
  });
}

/**
 * The unified diff of one file (both names of a rename, so git pairs them), or of every changed
 * file when none is named, cut at `maxBytes` with `truncated` set.
 */
export async function readFileDiff(
  port: GitPort,
  src: ChangesSource,
  file: { path: string; from?: string } | undefined,
  maxBytes = 2_000_000,
): Promise<{ patch: string; truncated: boolean } | Failure> {
  return withScratchIndex(port, src, async (call) => {
    const paths = !file ? [] : file.from !== undefined ? [file.from, file.path] : [file.path];
    const r = await runGit(
      port,
      src.top,
      [...DIFF_OPTS, '--no-color', '--src-prefix=a/', '--dst-prefix=b/', ...against(src), '--', ...paths.map(literal)],
      call,
    );
    if (!r.ok) return r;
    const truncated = r.stdout.length > maxBytes;
    return { patch: truncated ? r.stdout.slice(0, maxBytes) : r.stdout, truncated };
  });
}

/**
 * Options every diff here takes, whatever the repository's config says: no external diff or
 * text conversion programs, renames found, paths from the top, plain a/ b/ prefixes.
 */
const DIFF_OPTS = ['diff', '--no-ext-diff', '--no-textconv', '-M', '--no-relative'];

function against(src: ChangesSource): string[] {
  return src.base !== undefined ? ['--merge-base', headsRef(src.base)] : ['HEAD'];
}

/** A pathspec that means exactly this path: no glob, no magic, whatever it holds. */
export function literal(path: string): string {
  return `:(literal)${path}`;
}

async function withScratchIndex<T>(
  port: GitPort,
  src: ChangesSource,
  body: (call: GitCall) => Promise<T | Failure>,
): Promise<T | Failure> {
  const scratch: Scratch | undefined = await port.scratchCopy(`${src.gitDir}/index`);
  try {
    if (!scratch) return body({});
    const call = { env: { GIT_INDEX_FILE: scratch.path } };
    // -N: intent to add, no blob is written; -A: every untracked file the ignore rules let through.
    // A file it cannot read is left out (and git exits non-zero); the diff still answers for the rest.
    await runGit(port, src.top, ['add', '-A', '-N', '--ignore-errors'], call);
    return await body(call);
  } finally {
    await scratch?.drop().catch(() => undefined);
  }
}
