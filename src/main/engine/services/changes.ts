import type { AnswerOf, SeatChanges } from '../../../shared/contract';
import { fail, isFailure, type Result } from '../../../shared/errors';
import { composeReview } from '../../../shared/review-text';
import { activityLabel } from '../activity/decide';
import { observeSeats } from '../activity/observe';
import { mergeSeat } from '../changes/gate';
import { listChanges } from '../changes/list';
import { removeSeatWorktree } from '../changes/remove';
import { sendToSeat } from '../delivery/send';
import type { Engine } from '../engine';
import { readFileDiff } from '../git';
import type { SeatRow } from '../store';

/**
 * The work loop's requests: what each seat changed (with the overlaps in its rig), one diff, a
 * review sent back through safe send, the merge gate, a worktree's removal.
 */

export async function changesList(
  engine: Engine,
  p: { seat?: string; rig?: string },
): Promise<Result<{ seats: SeatChanges[] }>> {
  let rig = p.rig;
  let only: string | undefined;
  if (p.seat !== undefined) {
    const found = engine.store.rigs.find(p.seat);
    if (!found.ok) return found;
    rig = found.seat.rig;
    only = found.seat.seat;
  }
  if (!rig || !engine.store.rigs.exists(rig))
    return fail('RIG_NOT_FOUND', `no rig ${rig ?? ''}`, { hint: 'Bring it up first: rigdesk up <spec.yaml>.' });
  // A seat's overlaps are with the other seats of its rig: the whole rig is read either way.
  const all = await listChanges(engine.ports.changes, engine.store.rigs.seats(rig));
  return { ok: true, seats: only ? all.filter((s) => s.seat === only) : all };
}

const MAX_PATCH = 2_000_000;

export async function changesDiff(
  engine: Engine,
  p: { seat: string; path?: string },
): Promise<Result<AnswerOf<'changes.diff'>>> {
  const found = engine.store.rigs.find(p.seat);
  if (!found.ok) return found;
  const look = await engine.ports.changes.look(found.seat);
  if (!('tree' in look)) return fail(look.problem.code, look.problem.message, { hint: look.problem.hint });
  const file =
    p.path === undefined ? undefined : (look.figures?.files.find((f) => f.path === p.path) ?? { path: p.path });
  const r = await readFileDiff(engine.ports.gitOn(found.seat.host), look.tree, file, MAX_PATCH);
  if (isFailure(r)) return r;
  return { ok: true, seat: found.seat.seat, ...(p.path !== undefined ? { path: p.path } : {}), ...r };
}

export async function reviewSend(
  engine: Engine,
  p: {
    seat: string;
    comments: { path: string; line: number; side?: 'old' | 'new'; text: string }[];
    note?: string;
    waitForIdle?: number;
  },
): Promise<Result<AnswerOf<'review.send'>>> {
  const found = engine.store.rigs.find(p.seat);
  if (!found.ok) return found;
  const message = composeReview({ branch: found.seat.worktree?.branch, comments: p.comments, note: p.note });
  const sent = await sendToSeat(engine.ports, found.seat.seat, message, { waitForIdle: p.waitForIdle });
  if (!sent.ok) return sent;
  engine.store.events.append(
    'review.sent',
    { rig: found.seat.rig, seat: found.seat.seat },
    { comments: p.comments.length, files: [...new Set(p.comments.map((c) => c.path))].slice(0, 50) },
  );
  return { ok: true, message, sent: sent.sent };
}

export async function mergeRun(
  engine: Engine,
  p: { seat: string; into?: string },
): Promise<Result<AnswerOf<'merge.run'>>> {
  const found = engine.store.rigs.find(p.seat);
  if (!found.ok) return found;
  const r = await mergeSeat({ ...engine.ports, activityOf: (s) => activityOf(engine, s) }, found.seat, p.into);
  if (!r.ok) return r;
  engine.ports.changes.refreshRepo(found.seat.seat);
  return r;
}

export async function worktreeRemove(
  engine: Engine,
  p: { seat: string; force?: boolean },
): Promise<Result<AnswerOf<'worktree.remove'>>> {
  const found = engine.store.rigs.find(p.seat);
  if (!found.ok) return found;
  return removeSeatWorktree(engine.ports, found.seat, p.force === true);
}

async function activityOf(engine: Engine, seat: SeatRow) {
  const observed = await observeSeats(engine.ports, await engine.roster(), [seat]);
  const o = observed.get(seat.seat);
  if (!o) return { activity: 'unknown' as const };
  const why = o.activity.basis[0]?.detail;
  return { activity: activityLabel(o.activity), ...(why ? { why } : {}) };
}
