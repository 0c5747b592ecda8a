import { type EventRow, TIMELINE_GROUPS, TIMELINE_QUIET_PREFIXES, type TimelineKind } from '../../../shared/contract';
import { fail, type Result } from '../../../shared/errors';
import type { Ports } from '../ports';
import type { EventKind } from '../store';
import { eventRow, type RawEvent } from '../store/events';

/** Every kind the log takes is in a timeline group or quiet: a new kind that is neither does not compile. */
type Grouped = (typeof TIMELINE_GROUPS)[TimelineKind][number];
type Quiet = `${(typeof TIMELINE_QUIET_PREFIXES)[number]}${string}`;
type Ungrouped = Exclude<EventKind, Quiet>;
export const EVERY_KIND_GROUPED: [Exclude<Ungrouped, Grouped>] extends [never] ? true : Exclude<Ungrouped, Grouped> =
  true;

export interface RigTimelineQuery {
  rig: string;
  seats?: string[];
  kinds?: TimelineKind[];
  beforeSeq?: number;
  limit?: number;
}

/**
 * A rig's events, newest first, one page per call: keyset paging on seq (`seq < beforeSeq`, on the
 * index events_by_rig(rig, seq), or events_by_seat for one seat), so the 100th page costs what the
 * first does and a page never reads the rest of the log. One row past the page says `more`.
 */
export function rigTimeline(
  ports: Pick<Ports, 'store'>,
  q: RigTimelineQuery,
): Result<{ rig: string; events: EventRow[]; more: boolean }> {
  if (!ports.store.rigs.exists(q.rig)) return fail('RIG_NOT_FOUND', `no rig named ${q.rig}`);
  const seats: string[] = [];
  for (const ref of q.seats ?? []) {
    const found = ports.store.rigs.find(ref);
    if (!found.ok) return found;
    if (found.seat.rig !== q.rig) return fail('BAD_USAGE', `${found.seat.seat} is not a seat of ${q.rig}`);
    seats.push(found.seat.seat);
  }
  const where = ['rig = ?'];
  const args: (string | number)[] = [q.rig];
  if (seats.length > 0) {
    where.push(`seat IN (${seats.map(() => '?').join(', ')})`);
    args.push(...seats);
  }
  if (q.kinds) {
    const kinds = [...new Set(q.kinds.flatMap((k) => TIMELINE_GROUPS[k]))];
    where.push(`kind IN (${kinds.map(() => '?').join(', ')})`);
    args.push(...kinds);
  } else
    for (const p of TIMELINE_QUIET_PREFIXES) {
      where.push('substr(kind, 1, ?) <> ?');
      args.push(p.length, p);
    }
  if (q.beforeSeq !== undefined) {
    where.push('seq < ?');
    args.push(q.beforeSeq);
  }
  const limit = q.limit ?? 100;
  const rows = ports.store.db
    .prepare<(string | number)[], RawEvent>(
      `SELECT seq, at, kind, rig, seat, data_json FROM events WHERE ${where.join(' AND ')} ORDER BY seq DESC LIMIT ?`,
    )
    .all(...args, limit + 1);
  return { ok: true, rig: q.rig, events: rows.slice(0, limit).map(eventRow), more: rows.length > limit };
}
