import type { Snapshot, SnapshotReason, SnapshotSeat } from '../../../shared/contract';
import { fail, type Result } from '../../../shared/errors';
import type { Ports } from '../ports';
import type { Roster } from '../roster/types';
import { bindDiscoveredConversations } from '../seats/bind';
import { ownPane, transcriptFact } from './facts';
import { keepsConversations } from '../runtimes';

/**
 * Snapshots: every seat's runtime, cwd, conversation id with the evidence behind it, and whether
 * it was stopped on purpose. The store already holds the latest of each; a snapshot freezes them
 * with what the live system showed at that moment, so a restore can say what it was based on.
 */

/** `bind: false` (a --plan) writes nothing, not even a conversation the live process proves. */
export function snapshotSeats(
  ports: Pick<Ports, 'fs' | 'io' | 'seatHome' | 'store'>,
  roster: Roster,
  rig: string,
  opts: { bind?: boolean } = {},
): SnapshotSeat[] {
  const before = new Map(ports.store.rigs.seats(rig).map((s) => [s.seat, s.conversationId]));
  // What each seat's own process shows is written down first (the engine's binding, as `ps` does):
  // Codex names its thread only once it runs, and a reboot must not find the store without it.
  if (opts.bind !== false) bindDiscoveredConversations(ports, roster);
  return ports.store.rigs.seats(rig).map((row) => {
    const stored = { conversationId: before.get(row.seat) ?? null };
    const bound = row.conversationId !== stored.conversationId;
    const own = ownPane(ports, roster, row.seat);
    const agent = own.pane?.agent;
    // A running agent's own claim is fresher than the store (Claude's /clear moves it on).
    const liveId = agent?.conversationId;
    const conversationId = liveId ?? row.conversationId;
    const evidence: SnapshotSeat['evidence'] = {
      source: liveId ? `roster:${agent?.conversationSource}` : row.conversationId ? 'store' : 'none',
      ...(agent ? { pid: agent.pid, startTime: agent.startTime } : {}),
      ...(agent && own.pane ? { paneId: own.pane.paneId, sessionId: own.pane.sessionId } : {}),
    };
    if (liveId && stored.conversationId && liveId !== stored.conversationId)
      evidence.storeConversationId = stored.conversationId;
    if (bound) evidence.bound = true;
    if (conversationId && keepsConversations(row.runtime)) {
      const t = transcriptFact(ports, row, conversationId);
      evidence.transcript = t;
      const known = ports.store.conversations.get(row.runtime, conversationId);
      if (known) evidence.recorded = { home: known.home, cwd: known.cwd, transcriptPath: known.transcriptPath };
    }
    const state: SnapshotSeat['state'] =
      own.running === 'running' ? 'running' : own.running === 'unknown' ? 'unknown' : own.live ? 'gone' : 'stopped';
    return {
      seat: row.seat,
      runtime: row.runtime,
      cwd: row.cwd,
      restorePolicy: row.restorePolicy,
      conversationId,
      evidence,
      stoppedOnPurpose: row.stoppedOnPurpose,
      state,
    };
  });
}

/** `rigdesk snapshot <rig>`; also the hook `down` calls first (reason before_down). */
export async function snapshotRig(
  ports: Pick<Ports, 'fs' | 'io' | 'roster' | 'seatHome' | 'store'>,
  rig: string,
  reason: SnapshotReason = 'manual',
  roster?: Roster,
): Promise<Result<{ snapshot: Snapshot }>> {
  if (!ports.store.rigs.exists(rig)) {
    return fail('RIG_NOT_FOUND', `no rig ${JSON.stringify(rig)}`, {
      hint: `Known rigs: ${ports.store.rigs.names().join(', ') || '(none)'}.`,
    });
  }
  const r = roster ?? (await ports.roster());
  const repos = ports.store.restore;
  const snapshot = repos.snapshots.insert(rig, reason, snapshotSeats(ports, r, rig));
  repos.event(
    'snapshot.taken',
    { rig },
    { snapshot: snapshot.id, reason, seats: snapshot.seats.length, problems: r.problems.length },
  );
  return { ok: true, snapshot };
}

/**
 * The timer the app (or `rigdesk serve`) runs: one roster per tick for every rig with a running
 * seat, never overlapping itself. Returns the function that stops it.
 */
export function startSnapshotTimer(
  ports: Pick<Ports, 'clock' | 'fs' | 'io' | 'roster' | 'seatHome' | 'store'>,
  everyMs: number,
  onError: (e: unknown) => void = () => undefined,
): () => void {
  let busy = false;
  const tick = async () => {
    if (busy) return;
    busy = true;
    try {
      const roster = await ports.roster();
      for (const rig of ports.store.rigs.names()) {
        if (!ports.store.rigs.seats(rig).some((s) => ports.store.sessions.live(s.seat))) continue;
        await snapshotRig(ports, rig, 'timer', roster);
      }
    } catch (e) {
      onError(e);
    } finally {
      busy = false;
    }
  };
  const timer = ports.clock.every(everyMs, () => void tick(), { unref: true });
  return () => timer.cancel();
}
