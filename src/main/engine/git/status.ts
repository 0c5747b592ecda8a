import type { Failure } from '../../../shared/errors';
import { headsRef } from './names';
import { parseStatusV2, type Status } from './parse';
import type { GitPort } from './port';
import { nulFields, runGit } from './run';

/** What is not committed in a working tree (untracked files included, ignored ones not). */
export async function readStatus(port: GitPort, dir: string): Promise<Status | Failure> {
  const r = await runGit(port, dir, ['status', '--porcelain=v2', '-z', '--branch', '--untracked-files=all']);
  return r.ok ? parseStatusV2(r.stdout) : r;
}

/** The commits `branch` has that `base` lacks, newest first, at most `limit` (short id and subject). */
export async function commitsAhead(
  port: GitPort,
  dir: string,
  base: string,
  branch: string,
  limit = 50,
): Promise<{ id: string; subject: string }[] | Failure> {
  const r = await runGit(port, dir, [
    'log',
    '-z',
    `--max-count=${limit}`,
    '--format=%h%x09%s',
    `${headsRef(base)}..${headsRef(branch)}`,
    '--',
  ]);
  if (!r.ok) return r;
  return nulFields(r.stdout).map((rec) => {
    const tab = rec.indexOf('\t');
    return { id: rec.slice(0, tab), subject: rec.slice(tab + 1) };
  });
}
