import type { SeatChanges } from '../../shared/contract';
import { fail, type Result } from '../../shared/errors';
import type { ParsedArgs } from '../args';
import { table } from '../format';
import { type CommandTable, type Prepared, prepare } from './types';

/** The work loop's commands: changes, diff, merge, worktree remove. */

type Prep = Result<{ prepared: Prepared }>;
const ready = (prepared: Prepared): Prep => ({ ok: true, prepared });
const str = (a: ParsedArgs, flag: string): string | undefined =>
  typeof a.flags[flag] === 'string' ? a.flags[flag] : undefined;

function seatArg(a: ParsedArgs, at = 0): Result<{ seat: string }> {
  const seat = a.positionals[at];
  return seat
    ? { ok: true, seat }
    : fail('BAD_USAGE', `${a.command} needs a seat (member@rig)`, { hint: `rigdesk ${a.command} --help` });
}

const STATUS: Record<string, string> = { added: 'A', modified: 'M', deleted: 'D', renamed: 'R' };

/** One seat's changes as a person reads them: where, then a line a file, then the risks. */
export function changesText(s: SeatChanges): string {
  const head = s.worktree
    ? `${s.seat}: ${s.branch} (from ${s.base}) in ${s.worktree}`
    : `${s.seat}: ${s.tree ? `${s.tree} (no worktree of its own; against HEAD)` : 'no repository'}`;
  const lines = [head];
  if (s.problem) lines.push(`  ${s.problem.code}: ${s.problem.message}`);
  if (s.files.length === 0 && !s.problem) lines.push('  no changes');
  else if (s.files.length > 0)
    lines.push(
      table(
        s.files.map((f) => [
          `  ${STATUS[f.status] ?? '?'}`,
          f.binary ? 'binary' : `+${f.added} -${f.removed}`,
          f.from ? `${f.from} -> ${f.path}` : f.path,
        ]),
      ),
    );
  if (s.sharedWith.length)
    lines.push(`  shares its working tree with ${s.sharedWith.join(', ')}: their changes cannot be told apart`);
  for (const o of s.overlaps) lines.push(`  overlaps ${o.seat} on ${o.paths.join(', ')}`);
  return lines.join('\n');
}

const changes = {
  usage: 'changes <member@rig> | --rig R  what each seat changed (files, lines), shared trees and overlaps',
  toRequest: (a: ParsedArgs): Prep => {
    const rig = str(a, 'rig');
    const seat = a.positionals[0];
    if ((rig === undefined) === (seat === undefined))
      return fail('BAD_USAGE', 'changes needs a seat (member@rig) or --rig R, not both');
    const params = rig !== undefined ? { rig } : { seat: seat! };
    return ready(prepare('changes.list', params, (r) => r.seats.map(changesText).join('\n\n')));
  },
};

const diff = {
  usage: "diff <member@rig> [--file P]  the unified diff of a seat's changes (or one file of them)",
  toRequest: (a: ParsedArgs): Prep => {
    const s = seatArg(a);
    if (!s.ok) return s;
    const path = str(a, 'file');
    return ready(
      prepare(
        'changes.diff',
        { seat: s.seat, ...(path !== undefined ? { path } : {}) },
        (r) =>
          `${r.patch.replace(/\n$/, '')}${r.truncated ? '\n… (cut: the diff is larger than the engine sends)' : ''}`,
      ),
    );
  },
};

const merge = {
  usage: "merge <member@rig> [--into B]  merge the seat's branch into its base through the gate (idle, clean, checks)",
  toRequest: (a: ParsedArgs): Prep => {
    const s = seatArg(a);
    if (!s.ok) return s;
    const into = str(a, 'into');
    return ready(
      prepare('merge.run', { seat: s.seat, ...(into !== undefined ? { into } : {}) }, (r) =>
        [
          r.upToDate
            ? `${r.into} already holds ${r.branch}: nothing to merge`
            : `merged ${r.branch} into ${r.into}: ${r.commit}`,
          ...(r.checks ? [`checks passed: ${r.checks.command.join(' ')}`] : []),
          ...(r.updatedTree ? [`updated the checkout at ${r.updatedTree}`] : []),
        ].join('\n'),
      ),
    );
  },
};

const worktree = {
  usage: "worktree remove <member@rig> [--force]  remove a seat's worktree (refused while it holds work)",
  toRequest: (a: ParsedArgs): Prep => {
    if (a.positionals[0] !== 'remove')
      return fail('BAD_USAGE', 'worktree needs a subcommand: remove', { hint: 'rigdesk worktree remove <member@rig>' });
    const s = seatArg(a, 1);
    if (!s.ok) return s;
    return ready(
      prepare('worktree.remove', { seat: s.seat, ...(a.flags.force ? { force: true } : {}) }, (r) =>
        [
          `removed ${r.path}`,
          r.branchDeleted
            ? `deleted branch ${r.branch}`
            : `kept branch ${r.branch}${r.keptCommits ? ` (${r.keptCommits} commit(s) of its own)` : ''}`,
        ].join('\n'),
      ),
    );
  },
};

export const CHANGES_COMMANDS: CommandTable = { changes, diff, merge, worktree };
