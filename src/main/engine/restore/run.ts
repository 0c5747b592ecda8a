import type {
  RestoreReport,
  SeatOutcome,
  SeatPlan,
  SeatPlanView,
  SeatPreview,
  SeatResult,
  Snapshot,
  SnapshotSeat,
} from '../../../shared/contract';
import { fail, type Ok, type Result } from '../../../shared/errors';
import { resolveStaleReservation } from '../custody/census';
import type { Ports } from '../ports';
import { sessionGone } from '../custody/gone';
import type { Roster } from '../roster/types';
import { decideSeat, plannedOutcome, rigOutcome } from './decide';
import { execContext, executePlan } from './execute';
import { ownPane, seatFacts } from './facts';
import { atFault } from '../faults';
import { remoteGates } from './remote-facts';
import { snapshotSeats } from './snapshot';
import type { VerifyOptions } from './verify';
import type { RestorePorts } from './ports';
import { inLanes, LAUNCH_LANES, Slots } from '../seats/lanes';
import { RestoreReads } from './reads';

/**
 * `rigdesk restore <rig|snapshot> [--plan]`: snapshot facts + live facts -> decision table ->
 * seats in parallel lanes (seats/lanes.ts), each behind the create fence (launchSeat). Running it twice, or after
 * a crash at any step, converges: running seats are verified, not relaunched; an open decision is
 * refreshed, not duplicated; a stale reservation is settled by census inside launchSeat.
 */

/** `<rig>` wins when a rig has that name; otherwise `N` or `snap-N` names a snapshot. */
export function resolveTarget(
  ports: Pick<Ports, 'store'>,
  target: string,
): Result<{ rig: string; snapshot?: Snapshot }> {
  if (ports.store.rigs.exists(target)) return { ok: true, rig: target };
  const m = /^(?:snap-)?(\d+)$/.exec(target);
  const snap = m ? ports.store.restore.snapshots.get(Number(m[1])) : undefined;
  if (snap) {
    if (!ports.store.rigs.exists(snap.rig))
      return fail('RIG_NOT_FOUND', `snapshot ${snap.id} is of rig ${snap.rig}, which is no longer recorded`);
    return { ok: true, rig: snap.rig, snapshot: snap };
  }
  return fail('RIG_NOT_FOUND', `no rig or snapshot ${JSON.stringify(target)}`, {
    hint: `Known rigs: ${ports.store.rigs.names().join(', ') || '(none)'}; rigdesk snapshots lists snapshots.`,
  });
}

export async function restore(
  ports: RestorePorts,
  target: string,
  opts: { plan?: boolean; verify?: Partial<VerifyOptions> } = {},
): Promise<Result<RestoreReport>> {
  const t = resolveTarget(ports, target);
  if (!t.ok) return t;
  const repos = ports.store.restore;
  const roster = await ports.roster();
  if (opts.plan) {
    // A preview writes nothing: it plans from the given snapshot, or from the store as it is.
    const seats = t.snapshot?.seats ?? snapshotSeats(ports, roster, t.rig, { bind: false });
    await atFault(ports.faults, 'restore.after_snapshot');
    const { plans, missing } = await planSeats(ports, roster, seats, { plan: true });
    return preview(t.rig, t.snapshot?.id ?? null, plans, missing);
  }
  // Restoring a rig by name restores its latest recorded state; that state is frozen first, so the
  // report says exactly what it was based on.
  let snapshot = t.snapshot;
  if (!snapshot) {
    snapshot = repos.snapshots.insert(t.rig, 'restore', snapshotSeats(ports, roster, t.rig));
    repos.event(
      'snapshot.taken',
      { rig: t.rig },
      { snapshot: snapshot.id, reason: 'restore', seats: snapshot.seats.length },
    );
  }
  await atFault(ports.faults, 'restore.after_snapshot');
  const { plans, missing } = await planSeats(ports, roster, snapshot.seats, { plan: false });
  return runPlans(ports, t.rig, snapshot.id, plans, missing, opts.verify);
}

type Refused = Extract<SeatResult, { outcome: 'failed' | 'refused' }>;

/** The decision table for every seat of the snapshot; seats refused before any plan are `missing`. */
async function planSeats(
  ports: Pick<Ports, 'client' | 'fs' | 'hosts' | 'io' | 'proc' | 'seatHome' | 'store'>,
  roster: Roster,
  seatsOf: readonly SnapshotSeat[],
  opts: { plan: boolean },
): Promise<{ plans: SeatPlan[]; missing: Refused[] }> {
  const repos = ports.store.restore;
  // Seats on other hosts: each host asked once, for all its seats, before anything is planned.
  const gates = await remoteGates(
    ports,
    roster,
    seatsOf.flatMap((s) => {
      const row = ports.store.rigs.seat(s.seat);
      return row ? [{ row, conversationId: s.conversationId }] : [];
    }),
  );
  const plans: SeatPlan[] = [];
  const missing: Refused[] = [];
  for (const s of seatsOf) {
    const row = ports.store.rigs.seat(s.seat);
    const refuse = (code: Refused['code'], why: string, evidence?: Record<string, unknown>) =>
      missing.push({ seat: s.seat, plan: 'refused', outcome: 'refused', code, why, ...(evidence ? { evidence } : {}) });
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
      refuse(gate.refusal.code, gate.refusal.why, gate.refusal.evidence);
      continue;
    }
    // A launch that died mid-fence (an earlier restore killed) left a reservation: census first, so
    // a session it created is adopted as the seat's own instead of read as someone else's.
    const stale = opts.plan ? undefined : ports.store.reservations.active(row.seat);
    if (stale) {
      const settled = await resolveStaleReservation(ports, stale, roster);
      if (!settled.ok) {
        refuse(settled.code, settled.message, settled.evidence);
        continue;
      }
    }
    plans.push(decideSeat(seatFacts(ports, roster, s, row, gate?.transcript)));
    // A live row whose session is provably gone (its server was listed without it) is history now,
    // whether or not this seat launches: a seat left awaiting a decision must not read as "gone".
    const own = ownPane(ports, roster, row.seat);
    if (!opts.plan && own.running === 'not_running' && own.live && (await sessionGone(ports, own.live)) === 'gone') {
      ports.store.sessions.end(own.live.id, 'gone');
      repos.event(
        'restore.seat',
        { rig: row.rig, seat: row.seat },
        { step: 'ended_gone', sessionId: own.live.sessionId, paneId: own.live.paneId, server: own.live.server },
      );
    }
  }
  return { plans, missing };
}

function planView(plans: readonly SeatPlan[]): SeatPlanView[] {
  return plans.map((p) => {
    const planned = plannedOutcome(p);
    return planned ? { ...p, planned } : p;
  });
}

/** A preview reports what each seat would end as if every launch succeeded. */
function preview(rig: string, snapshotId: number | null, plans: SeatPlan[], missing: Refused[]): Ok<RestoreReport> {
  const expected = (p: SeatPlan): SeatOutcome =>
    plannedOutcome(p) ?? (p.action === 'resume' ? 'resumed' : p.action === 'fresh' ? 'fresh' : 'running');
  const seats: SeatPreview[] = [
    ...missing,
    ...plans.map((p) => ({ seat: p.seat, plan: p.action, outcome: expected(p), why: p.why })),
  ];
  return {
    ok: true,
    rig,
    snapshotId,
    planOnly: true,
    outcome: rigOutcome(seats.map((s) => s.outcome)),
    seats,
    plan: planView(plans),
  };
}

/** Seats in lanes, each behind the create fence; the run is a row until it finishes. */
async function runPlans(
  ports: RestorePorts,
  rig: string,
  snapshotId: number,
  plans: SeatPlan[],
  missing: Refused[],
  verify: Partial<VerifyOptions> | undefined,
): Promise<Ok<RestoreReport>> {
  const repos = ports.store.restore;
  const run = repos.runs.start(rig, snapshotId, ports.selfPid);
  repos.event(
    'restore.planned',
    { rig },
    { run, snapshot: snapshotId, plan: plans.map((p) => ({ seat: p.seat, action: p.action, why: p.why })) },
  );
  await atFault(ports.faults, 'restore.after_plan');

  // At most LAUNCH_LANES launches at once: 200 written together starved tmux's one thread, and
  // most of them timed out. The proof waits after them (seconds each) all run together, sharing
  // rosters and screen looks. Seats that resume one conversation run one after another.
  const reads = new RestoreReads(ports);
  const ctx = {
    ...execContext(ports, rig, snapshotId, verify),
    roster: reads.forProof,
    reads,
    launches: new Slots(LAUNCH_LANES),
  };
  const results = await inLanes(
    plans,
    plans.length,
    async (p): Promise<SeatResult> => {
      try {
        return await executePlan(ports, p, ctx);
      } catch (e) {
        return { seat: p.seat, plan: p.action, outcome: 'failed', code: 'INTERNAL', why: (e as Error).message };
      }
    },
    (p) => ('conversationId' in p && p.conversationId ? `conversation:${p.conversationId}` : `seat:${p.seat}`),
  );
  const seats: SeatResult[] = [...missing, ...results];
  for (const s of seats) repos.event('restore.seat', { rig, seat: s.seat }, { run, ...s });
  const outcome = rigOutcome(seats.map((s) => s.outcome));
  await atFault(ports.faults, 'restore.before_finish');
  repos.runs.finish(run, outcome, seats);
  repos.event('restore.finished', { rig }, { run, snapshot: snapshotId, outcome });
  return { ok: true, rig, snapshotId, planOnly: false, outcome, seats, plan: planView(plans) };
}
