import { join } from 'node:path';
import { fail, type Failure, isFailure, type Result } from '../../../shared/errors';
import { ensureWorktree, locateRepo, seatBranch } from '../git';
import type { Ports } from '../ports';
import type { RigSpec } from '../spec';
import type { Placements, SeatRow, SeatWorktree } from '../store';
import { Slots } from './lanes';

/**
 * Where a seat with `worktree:` runs. When its rig comes up, the worktree's place is fixed:
 * `<home>/worktrees/<rig>/<member>` on the seat's host, branch `rigdesk/<rig>/<member>`, from the
 * base the spec names or the repository's current branch; the seat's cwd is the spec's folder's
 * place inside it. Each launch (up, restart, restore, fork) then makes it once or finds it again;
 * a worktree folder deleted by hand is reported (WORKTREE_MISSING), never made anew silently.
 */

export type WorktreePorts = Pick<Ports, 'gitOn' | 'layout' | 'hosts'>;

/** The placements of every member of `spec` that asks for a worktree. */
export async function placeWorktrees(ports: WorktreePorts, spec: RigSpec): Promise<Result<{ placed: Placements }>> {
  const placed = new Map<string, { cwd: string; worktree: SeatWorktree }>();
  for (const pod of spec.pods)
    for (const m of pod.members) {
      if (!m.worktree) continue;
      const host = m.host ?? 'local';
      const git = ports.gitOn(host);
      const repo = await locateRepo(git, m.cwd);
      if (isFailure(repo)) return withSeat(repo, `${m.id}@${spec.name}`);
      const base = m.worktree.base ?? repo.branch;
      if (base === undefined)
        return fail(
          'SPEC_INVALID',
          `${repo.top} has no branch checked out (HEAD is detached), so ${m.id} has no base`,
          {
            hint: 'Name the base branch in the spec: `worktree: { base: main }`.',
            evidence: { seat: `${m.id}@${spec.name}`, repo: repo.top },
          },
        );
      const root = await worktreeRoot(ports, host);
      if (!root.ok) return root;
      const path = join(root.dir, spec.name, m.id);
      placed.set(`${m.id}@${spec.name}`, {
        cwd: repo.prefix ? join(path, repo.prefix) : path,
        worktree: { repo: repo.top, path, branch: seatBranch(spec.name, m.id), base },
      });
    }
  return { ok: true, placed };
}

/**
 * One worktree made at a time per repository: seats launch in lanes, and two `git worktree add`
 * in one repository at once can read each other's half-made `.git/worktrees/<name>` ("failed to
 * read .git/worktrees/s2/commondir", seen in a CI run with four worktree seats brought up together).
 */
const REPO_SLOTS = new Map<string, Slots>();
function repoSlot(host: string, commonDir: string): Slots {
  const key = `${host}\n${commonDir}`;
  let s = REPO_SLOTS.get(key);
  if (!s) REPO_SLOTS.set(key, (s = new Slots(1)));
  return s;
}

/** Makes the seat's worktree, or finds it again; nothing to do for a seat without one. */
export async function ensureSeatWorktree(ports: WorktreePorts, seat: SeatRow): Promise<Result<{ created: boolean }>> {
  const w = seat.worktree;
  if (!w) return { ok: true, created: false };
  const git = ports.gitOn(seat.host);
  const repo = await locateRepo(git, w.repo);
  if (isFailure(repo)) return withSeat(repo, seat.seat);
  const made = await repoSlot(seat.host, repo.commonDir).run(() =>
    ensureWorktree(git, { repo, path: w.path, branch: w.branch, base: w.base }),
  );
  if (!made.ok) return withSeat(made, seat.seat);
  return { ok: true, created: made.created };
}

/** Rigdesk's worktrees folder on a host: this machine's home, or `~/.rigdesk/worktrees` there. */
async function worktreeRoot(ports: WorktreePorts, host: string): Promise<Result<{ dir: string }>> {
  if (host === 'local') return { ok: true, dir: join(ports.layout.home, 'worktrees') };
  const h = ports.hosts.get(host);
  const r = h ? await h.exec('sh', ['-c', 'printf %s "$HOME"']) : undefined;
  const home = r?.code === 0 ? r.stdout : '';
  if (!home.startsWith('/'))
    return fail('HOST_UNREACHABLE', `host ${host} did not say its home folder, so its worktrees have no place`, {
      hint: `Check the host with \`rigdesk hosts check ${host}\`, then bring the rig up again.`,
      evidence: { host, stderr: r?.stderr ?? '' },
    });
  return { ok: true, dir: `${home}/.rigdesk/worktrees` };
}

function withSeat(f: Failure, seat: string): Failure {
  return { ...f, message: `${seat}: ${f.message}`, evidence: { ...f.evidence, seat } };
}
