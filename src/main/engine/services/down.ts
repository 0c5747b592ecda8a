import type { StoppedSeat } from '../../../shared/contract';
import { fail, type Failure, type Result } from '../../../shared/errors';
import type { Engine } from '../engine';
import { snapshotRig } from '../restore/snapshot';
import { stopSeat } from '../seats/stop';
import { inLanes, LAUNCH_LANES } from '../seats/lanes';

/** A seat `down` could not stop: in the failure's evidence, beside the seats that did stop. */
interface NotRemovedSeat {
  seat: string;
  outcome: 'not_removed';
  why: string;
}

export async function downRig(engine: Engine, rig: unknown): Promise<Result<{ rig: string; seats: StoppedSeat[] }>> {
  if (typeof rig !== 'string' || !engine.store.rigs.exists(rig)) {
    return fail('RIG_NOT_FOUND', `no rig ${JSON.stringify(rig)}`, {
      hint: `Known rigs: ${engine.store.rigs.names().join(', ') || '(none)'}.`,
    });
  }
  // A snapshot before taking a rig down is what restore works from later.
  await snapshotRig(engine.ports, rig, 'before_down');
  // Several seats stop at once (seats/lanes.ts), each seat's own steps in order.
  const rows = engine.store.rigs.seats(rig);
  const each = await inLanes(rows, LAUNCH_LANES, (seat) => stopSeat(engine.ports, seat.seat));
  const stopped: StoppedSeat[] = [];
  // Every seat in order, stopped or not: what the event and a failure's evidence show.
  const results: (StoppedSeat | NotRemovedSeat)[] = [];
  const failures: Failure[] = [];
  rows.forEach((seat, i) => {
    const r = each[i]!;
    if (r.ok) {
      stopped.push(r.stopped);
      results.push(r.stopped);
    } else {
      results.push({ seat: seat.seat, outcome: 'not_removed', why: r.message });
      failures.push(r);
    }
  });
  engine.store.events.append('rig.down', { rig }, { seats: results });
  if (failures.length > 0) {
    return fail('NOT_REMOVED', `${failures.length} seat(s) of ${rig} were not removed`, {
      evidence: { seats: results },
    });
  }
  return { ok: true, rig, seats: stopped };
}
