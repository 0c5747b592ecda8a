import { fail, type Result } from '../../../shared/errors';
import { resolveStaleReservation } from '../custody/census';
import type { Engine } from '../engine';
import { sessionGone } from '../custody/gone';
import { restoreRepos, type Snapshot } from '../store/restore-repos';
import { decideSeat, plannedOutcome, rigOutcome, type RigOutcome, type SeatOutcome, type SeatPlan } from './decide';
import { execContext, executePlan, type SeatResult } from './execute';
import { ownPane, seatFacts } from './facts';
import { restoreFault } from './faults';
import { remoteGates } from './remote-facts';
import { snapshotSeats } from './snapshot';
import type { VerifyOptions } from './verify';

/**
 * `rigdesk restore <rig|snapshot> [--plan]`: snapshot facts + live facts -> decision table ->
 * every seat in parallel, each behind the create fence (launchSeat). Running it twice, or after
 * a crash at any step, converges: running seats are verified, not relaunched; an open decision is
 * refreshed, not duplicated; a stale reservation is settled by census inside launchSeat.
 */

export interface RestoreReport {
  rig: string;
  snapshotId: number | null;
  planOnly: boolean;
  outcome: RigOutcome;
  seats: SeatResult[];
  plan: (SeatPlan & { planned?: SeatOutcome })[];
}

/** `<rig>` wins when a rig has that name; otherwise `N` or `snap-N` names a snapshot. */
export function resolveTarget(engine: Engine, target: string): Result<{ rig: string; snapshot?: Snapshot }> {
  if (engine.store.rigs.exists(target)) return { ok: true, rig: target };
  const m = /^(?:snap-)?(\d+)$/.exec(target);
  const snap = m ? restoreRepos(engine.store).snapshots.get(Number(m[1])) : undefined;
  if (snap) {
    if (!engine.store.rigs.exists(snap.rig))
      return fail('RIG_NOT_FOUND', `snapshot ${snap.id} is of rig ${snap.rig}, which is no longer recorded`);
    return { ok: true, rig: snap.rig, snapshot: snap };
  }
  return fail('RIG_NOT_FOUND', `no rig or snapshot ${JSON.stringify(target)}`, {
    hint: `Known rigs: ${engine.store.rigs.names().join(', ') || '(none)'}; rigdesk snapshots lists snapshots.`,
  });
}

export async function restore(
  engine: Engine,
  target: string,
  opts: { plan?: boolean; verify?: Partial<VerifyOptions> } = {},
): Promise<Result<RestoreReport>> {
  const t = resolveTarget(engine, target);
  if (!t.ok) return t;
  const repos = restoreRepos(engine.store);
  const roster = await engine.roster();
  // Restoring a rig by name restores its latest recorded state; that state is frozen first, so the
  // report says exactly what it was based on.
  let snapshot = t.snapshot;
  if (!snapshot && !opts.plan) {
    snapshot = repos.snapshots.insert(t.rig, 'restore', snapshotSeats(engine, roster, t.rig));
    repos.event(
      'snapshot.taken',
      { rig: t.rig },
      { snapshot: snapshot.id, reason: 'restore', seats: snapshot.seats.length },
    );
  }
  const seatsOf = snapshot?.seats ?? snapshotSeats(engine, roster, t.rig, { bind: !opts.plan });
  await restoreFault(engine, 'restore.after_snapshot');

  // Seats on other hosts: each host asked once, for all its seats, before anything is planned.
  const gates = await remoteGates(
    engine,
    roster,
    seatsOf.flatMap((s) => {
      const row = engine.store.rigs.seat(s.seat);
      return row ? [{ row, conversationId: s.conversationId }] : [];
    }),
  );
  const plans: SeatPlan[] = [];
  const missing: SeatResult[] = [];
  for (const s of seatsOf) {
    const row = engine.store.rigs.seat(s.seat);
    if (!row) {
      missing.push({
        seat: s.seat,
        plan: 'refused',
        outcome: 'failed',
        code: 'SEAT_NOT_FOUND',
        why: 'the seat is in the snapshot but no longer in the rig',
      });
      continue;
    }
    const gate = gates.get(row.seat);
    if (gate?.refusal) {
      missing.push({
        seat: s.seat,
        plan: 'refused',
        outcome: 'refused',
        code: gate.refusal.code,
        why: gate.refusal.why,
        evidence: gate.refusal.evidence,
      });
      continue;
    }
    // A launch that died mid-fence (an earlier restore killed) left a reservation: census first, so
    // a session it created is adopted as the seat's own instead of read as someone else's.
    const stale = opts.plan ? undefined : engine.store.reservations.active(row.seat);
    if (stale) {
      const settled = await resolveStaleReservation(engine, stale, roster);
      if (!settled.ok) {
        missing.push({
          seat: s.seat,
          plan: 'refused',
          outcome: 'refused',
          code: settled.code,
          why: settled.message,
          ...(settled.evidence ? { evidence: settled.evidence } : {}),
        });
        continue;
      }
    }
    plans.push(decideSeat(seatFacts(engine, roster, s, row, gate?.transcript)));
    // A live row whose session is provably gone (its server was listed without it) is history now,
    // whether or not this seat launches: a seat left awaiting a decision must not read as "gone".
    const own = ownPane(engine, roster, row.seat);
    if (!opts.plan && own.running === 'not_running' && own.live && (await sessionGone(engine, own.live)) === 'gone') {
      engine.store.sessions.end(own.live.id, 'gone');
      repos.event(
        'restore.seat',
        { rig: row.rig, seat: row.seat },
        { step: 'ended_gone', sessionId: own.live.sessionId, paneId: own.live.paneId, server: own.live.server },
      );
    }
  }
  const snapshotId = snapshot?.id ?? null;
  const planView = plans.map((p) => ({ ...p, ...(plannedOutcome(p) ? { planned: plannedOutcome(p) } : {}) }));
  if (opts.plan) {
    // A preview reports what each seat would end as if every launch succeeded.
    const expected = (p: SeatPlan): SeatOutcome =>
      plannedOutcome(p) ?? (p.action === 'resume' ? 'resumed' : p.action === 'fresh' ? 'fresh' : 'running');
    const seats: SeatResult[] = [
      ...missing,
      ...plans.map((p) => ({ seat: p.seat, plan: p.action, outcome: expected(p), why: p.why })),
    ];
    return {
      ok: true,
      rig: t.rig,
      snapshotId,
      planOnly: true,
      outcome: rigOutcome(seats.map((s) => s.outcome)),
      seats,
      plan: planView,
    };
  }

  const run = repos.runs.start(t.rig, snapshotId!, engine.deps.selfPid);
  repos.event(
    'restore.planned',
    { rig: t.rig },
    { run, snapshot: snapshotId, plan: plans.map((p) => ({ seat: p.seat, action: p.action, why: p.why })) },
  );
  await restoreFault(engine, 'restore.after_plan');

  const ctx = execContext(engine, t.rig, snapshotId, opts.verify);
  const results = await Promise.all(
    plans.map(async (p) => {
      try {
        return await executePlan(engine, p, ctx);
      } catch (e) {
        return {
          seat: p.seat,
          plan: p.action,
          outcome: 'failed' as const,
          code: 'INTERNAL',
          why: (e as Error).message,
        };
      }
    }),
  );
  const seats = [...missing, ...results];
  for (const s of seats) repos.event('restore.seat', { rig: t.rig, seat: s.seat }, { run, ...s });
  const outcome = rigOutcome(seats.map((s) => s.outcome));
  await restoreFault(engine, 'restore.before_finish');
  repos.runs.finish(run, outcome, seats);
  repos.event('restore.finished', { rig: t.rig }, { run, snapshot: snapshotId, outcome });
  return { ok: true, rig: t.rig, snapshotId, planOnly: false, outcome, seats, plan: planView };
}
