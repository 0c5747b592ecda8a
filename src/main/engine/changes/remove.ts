import { fail, isFailure, type Result } from '../../../shared/errors';
import { type Removed, removeWorktree } from '../git';
import type { Ports } from '../ports';
import type { SeatRow } from '../store';
import type { ChangesBook } from './book';

/**
 * `rigdesk worktree remove <seat>`: never while the seat runs in it, never with work that would be
 * lost unless forced (and then its branch and commits are kept). `down`, `stop` and a seat's
 * removal never come here: only a person's explicit ask removes a worktree.
 */
export async function removeSeatWorktree(
  ports: Pick<Ports, 'gitOn' | 'store'> & { changes: ChangesBook },
  seat: SeatRow,
  force = false,
): Promise<Result<Omit<Removed, 'ok'> & { seat: string }>> {
  const w = seat.worktree;
  if (!w)
    return fail('WORKTREE_NOT_FOUND', `${seat.seat} has no worktree of its own`, {
      hint: 'Only seats with `worktree:` in the rig spec have one to remove.',
    });
  if (ports.store.sessions.live(seat.seat))
    return fail('SEAT_BUSY', `${seat.seat} is running in ${w.path}`, {
      hint: `Stop it first: rigdesk stop ${seat.seat}.`,
    });
  const r = await removeWorktree(ports.gitOn(seat.host), { repoDir: w.repo, branch: w.branch, base: w.base, force });
  if (isFailure(r)) return r;
  ports.changes.forget(seat.seat);
  const { ok: _ok, ...rest } = r;
  ports.store.events.append('worktree.removed', { rig: seat.rig, seat: seat.seat }, { ...rest, force });
  return { ok: true, seat: seat.seat, ...rest };
}
