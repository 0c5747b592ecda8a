import type { SeatRow, Store } from './index';
import type { SessionRow } from './sessions';

/**
 * Seat and session writes restore needs that RigRepo and SessionRepo do not offer, kept here so
 * those repositories stay their owners' (direct SQL on the same tables, same columns).
 */

/**
 * Adds one seat to a rig that already exists (fork). The columns are exactly the ones
 * RigRepo.upsert writes; conversation and stop flag start empty. Returns false, changing nothing,
 * when the seat exists already or its rig does not.
 */
export function insertSeat(
  store: Store,
  seat: Omit<SeatRow, 'conversationId' | 'stoppedOnPurpose' | 'host'> & { host?: string },
  now: number,
): boolean {
  return store.db
    .transaction(() => {
      if (store.db.prepare('SELECT 1 FROM seats WHERE seat = ?').get(seat.seat) !== undefined) return false;
      if (store.db.prepare('SELECT 1 FROM rigs WHERE name = ?').get(seat.rig) === undefined) return false;
      store.db
        .prepare(`INSERT INTO seats (seat, rig, pod, member, runtime, cwd, command, args_json, env_json, restore_policy, created_at, updated_at, host, worktree_json, checks_json)
      VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`)
        .run(
          seat.seat,
          seat.rig,
          seat.pod,
          seat.member,
          seat.runtime,
          seat.cwd,
          seat.command,
          JSON.stringify(seat.args),
          JSON.stringify(seat.env),
          seat.restorePolicy,
          now,
          now,
          seat.host ?? 'local',
          // A fork works in its parent's tree: the same worktree, shared, and the same checks.
          seat.worktree ? JSON.stringify(seat.worktree) : null,
          seat.checks ? JSON.stringify(seat.checks) : null,
        );
      return true;
    })
    .immediate();
}

/**
 * Removes a seat this process added a moment ago and that never had an occupant or a reservation
 * (a fork whose launch was refused before anything was created). Anything else is kept: a row
 * with history is never deleted. True when it was removed.
 */
export function removeUnusedSeat(store: Store, seat: string): boolean {
  return store.db
    .transaction(() => {
      if (store.db.prepare('SELECT 1 FROM sessions WHERE seat = ? LIMIT 1').get(seat) !== undefined) return false;
      if (store.db.prepare('SELECT 1 FROM reservations WHERE seat = ? LIMIT 1').get(seat) !== undefined) return false;
      return store.db.prepare('DELETE FROM seats WHERE seat = ?').run(seat).changes === 1;
    })
    .immediate();
}

/**
 * The same pane got a new program (`respawn-pane -k`): the session row keeps its identity
 * (server, $id, created, %pane) and only its pane pid moves on. Compare-and-set on the old pid,
 * so a row someone else changed meanwhile is left alone. True when this call made the change.
 */
export function movePanePid(
  store: Store,
  row: Pick<SessionRow, 'id' | 'panePid'>,
  panePid: number,
  panePidStart: string | null,
): boolean {
  return (
    store.db
      .prepare("UPDATE sessions SET pane_pid = ?, pane_pid_start = ? WHERE id = ? AND state = 'live' AND pane_pid = ?")
      .run(panePid, panePidStart, row.id, row.panePid).changes === 1
  );
}
