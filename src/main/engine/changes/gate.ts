import type { Activity } from '../../../shared/contract';
import { fail, type Failure, isFailure, type Result } from '../../../shared/errors';
import type { ExecResult } from '../deps';
import { branchNameProblem, checkMerge, mergeInto, readStatus } from '../git';
import { tail } from '../git/run';
import type { Ports } from '../ports';
import type { SeatRow, SeatWorktree } from '../store';

/**
 * The merge gate: a seat's branch goes into its base only when the seat is idle, its worktree has
 * nothing uncommitted, the merge applies cleanly (checked in memory, nothing touched), and the
 * rig's checks pass in the worktree. Each refusal changes nothing and says what to do; each
 * outcome is an event in the seat's timeline.
 */

export type GatePorts = Pick<Ports, 'gitOn' | 'store' | 'exec' | 'env' | 'hosts'> & {
  /** What the seat is doing now, from a fresh look. */
  activityOf: (seat: SeatRow) => Promise<{ activity: Activity; why?: string }>;
};

export interface Merged {
  seat: string;
  branch: string;
  into: string;
  commit: string;
  upToDate: boolean;
  updatedTree?: string;
  checks?: { command: string[]; ok: boolean; tail: string };
}

/** How long the checks may run before they count as failed. */
export const CHECKS_TIMEOUT_MS = 20 * 60_000;

export async function mergeSeat(ports: GatePorts, seat: SeatRow, into?: string): Promise<Result<Merged>> {
  const r = await gate(ports, seat, into);
  const where = { rig: seat.rig, seat: seat.seat };
  if (r.ok) ports.store.events.append('merge.done', where, { ...r, checks: r.checks?.ok });
  else ports.store.events.append('merge.refused', where, { code: r.code, message: r.message });
  return r;
}

async function gate(ports: GatePorts, seat: SeatRow, intoIn?: string): Promise<Result<Merged>> {
  const w = seat.worktree;
  if (!w)
    return fail(
      'WORKTREE_NOT_FOUND',
      `${seat.seat} works in ${seat.cwd}, not in a worktree of its own: nothing to merge`,
      {
        hint: 'Give the seat `worktree: true` in the rig spec to merge its work through the gate.',
      },
    );
  const into = intoIn ?? w.base;
  const bad = branchNameProblem(into);
  if (bad) return fail('BAD_USAGE', `branch "${into}": ${bad}`);
  const now = await ports.activityOf(seat);
  if (now.activity !== 'idle' && now.activity !== 'exited' && ports.store.sessions.live(seat.seat))
    return fail(
      'SEAT_BUSY',
      `${seat.seat} is ${now.activity.replace('_', ' ')}${now.why ? ` (${now.why})` : ''}: its work is not settled`,
      {
        hint: 'Merge when the seat is idle (its turn ended), or stop it first.',
        evidence: { activity: now.activity },
      },
    );
  const git = ports.gitOn(seat.host);
  const status = await readStatus(git, w.path);
  if (isFailure(status)) return status;
  if (status.entries.length > 0)
    return fail(
      'WORKTREE_DIRTY',
      `${w.path} has ${status.entries.length} uncommitted file(s): the merge takes commits only`,
      {
        hint: `Ask ${seat.seat} to commit its work (or commit it yourself in ${w.path}), then merge again.`,
        evidence: { files: status.entries.slice(0, 50).map((e) => e.path) },
      },
    );
  const check = await checkMerge(git, w.repo, into, w.branch);
  if (isFailure(check)) return check;
  if (!check.clean) return conflict(w, into, check.conflicts);
  let checks: Merged['checks'];
  if (seat.checks && !check.upToDate) {
    checks = await runChecks(ports, seat, w, seat.checks);
    if (!checks.ok)
      return fail('CHECKS_FAILED', `the checks failed in ${w.path}: ${seat.checks.join(' ')}`, {
        hint: `Nothing was merged. Send the output to ${seat.seat} (or fix it), then merge again.`,
        evidence: { command: seat.checks, tail: checks.tail },
      });
  }
  const done = await mergeInto(git, w.repo, {
    into,
    branch: w.branch,
    message: `Merge ${w.branch} into ${into} (rigdesk: ${seat.seat})`,
  });
  if (isFailure(done)) return done;
  return {
    ok: true,
    seat: seat.seat,
    branch: w.branch,
    into,
    commit: done.commit,
    upToDate: done.upToDate,
    ...(done.updatedTree ? { updatedTree: done.updatedTree } : {}),
    ...(checks ? { checks } : {}),
  };
}

function conflict(w: SeatWorktree, into: string, files: string[]): Failure {
  return fail('MERGE_CONFLICT', `${w.branch} does not merge cleanly into ${into}: ${files.length} file(s) conflict`, {
    hint: `Nothing was changed. Ask the seat to merge ${into} into its branch and settle ${files.slice(0, 3).join(', ')}${files.length > 3 ? ', …' : ''}, then merge again.`,
    evidence: { files, into, branch: w.branch },
  });
}

/** The spec's checks in the worktree: its own argv, never a string built from data. */
async function runChecks(
  ports: GatePorts,
  seat: SeatRow,
  w: SeatWorktree,
  argv: string[],
): Promise<{ command: string[]; ok: boolean; tail: string }> {
  const [file, ...args] = argv as [string, ...string[]];
  let r: ExecResult;
  if (seat.host === 'local')
    r = await ports.exec(file, args, { cwd: w.path, env: ports.env, timeoutMs: CHECKS_TIMEOUT_MS });
  else {
    const h = ports.hosts.get(seat.host);
    // The folder and the argv go as positional parameters; the script is fixed.
    r = h
      ? await h.exec('sh', ['-c', 'cd -- "$1" && shift && exec "$@"', 'rigdesk-checks', w.path, ...argv], {
          timeoutMs: CHECKS_TIMEOUT_MS,
        })
      : {
          code: null,
          signal: null,
          stdout: '',
          stderr: `host ${seat.host} is not known`,
          timedOut: false,
          spawnError: 'host unknown',
        };
  }
  const out = `${r.stdout}${r.stderr ? `\n${r.stderr}` : ''}`;
  const why = r.timedOut ? '\n(stopped: the checks ran too long)' : r.spawnError ? `\n(${r.spawnError})` : '';
  return { command: argv, ok: r.code === 0, tail: tail(`${out}${why}`, 4000) };
}
