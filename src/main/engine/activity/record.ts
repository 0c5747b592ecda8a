import type { Ports } from '../ports';
import { activityLabel, type SeatActivity } from './decide';
import type { ObservedSeat } from './observe';

export interface ActivityChange {
  seat: string;
  activity: SeatActivity;
  label: ReturnType<typeof activityLabel>;
  at: number;
}

/**
 * What the activity monitor last recorded of each seat, and the recording itself: a seat whose
 * activity differs from its last look becomes a `seat.activity` event row (docs/architecture.md
 * invariant 8: a row before anyone hears of it). Looks arrive from several lookers (the monitor's
 * passes, a window's `ps`); one read from an older roster than the seat's last recorded look is
 * history and is not recorded over it.
 */
export class ActivityRecord {
  private readonly last = new Map<string, string>();
  private readonly seenAt = new Map<string, number>();
  constructor(private readonly ports: Pick<Ports, 'clock' | 'store'>) {}

  /** Whether the seat's last recorded activity is working. */
  working(seat: string): boolean {
    return this.last.get(seat)?.startsWith('working|') ?? false;
  }

  /** Records what changed in a look read from a roster taken at `takenAt`; returns the changes. */
  take(observed: ReadonlyMap<string, ObservedSeat>, takenAt: number): ActivityChange[] {
    const changes: ActivityChange[] = [];
    for (const [seat, o] of observed) {
      const seen = this.seenAt.get(seat);
      if (seen !== undefined && seen > takenAt) continue;
      this.seenAt.set(seat, takenAt);
      const label = activityLabel(o.activity);
      const key = `${label}|${o.activity.needsInput}|${o.activity.session}|${o.activity.draft ? 1 : 0}`;
      if (this.last.get(seat) === key) continue;
      this.last.set(seat, key);
      const at = this.ports.clock.now();
      this.ports.store.events.append(
        'seat.activity',
        { rig: o.seat.rig, seat },
        {
          label,
          session: o.activity.session,
          activity: o.activity.activity,
          needsInput: o.activity.needsInput,
          draft: Boolean(o.activity.draft),
          basis: o.activity.basis,
        },
      );
      changes.push({ seat, activity: o.activity, label, at });
    }
    return changes;
  }
}
