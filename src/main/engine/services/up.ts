import type { UpSeat } from '../../../shared/contract';
import { type ErrorCode, fail, type Result } from '../../../shared/errors';
import type { Engine } from '../engine';
import { RUNTIME_IDS } from '../runtimes';
import { loadRigSpec } from '../spec';
import { launchSeat } from '../seats/launch';
import { placeWorktrees } from '../seats/worktree';
import { inLanes, LAUNCH_LANES } from '../seats/lanes';
import { conversationRuntime } from '../runtimes/family';

/** A seat `up` could not launch: in the failure's evidence, beside the seats that did. */
interface RefusedSeat {
  seat: string;
  outcome: 'refused';
  code: ErrorCode;
  message: string;
}

/** Validates the spec (nothing starts when it is wrong), records the rig, launches every seat. */
export async function upRig(engine: Engine, specPath: unknown): Promise<Result<{ rig: string; seats: UpSeat[] }>> {
  if (typeof specPath !== 'string' || specPath === '') return fail('BAD_USAGE', 'up needs the path of a rig spec');
  // Hosts added with `rigdesk hosts add` count as known, as well as the spec's own (hosts:).
  const loaded = loadRigSpec(specPath, {
    knownRuntimes: RUNTIME_IDS,
    knownHosts: engine.store.hosts.all().map((h) => h.name),
  });
  if (!loaded.ok) return loaded;
  const { spec } = loaded;
  // Worktrees are placed before the rig is recorded (a seat whose repository cannot be read refuses
  // the rig); a remote seat's repository is read over its host, so the spec's hosts come first.
  for (const h of spec.hosts ?? []) engine.store.hosts.upsert(h, `spec:${spec.name}`);
  const placing = await placeWorktrees(engine.ports, spec);
  if (!placing.ok) return placing;
  engine.store.rigs.upsert(spec, placing.placed);
  engine.store.events.append('rig.up', { rig: spec.name }, { specPath: spec.specPath });
  const names = spec.pods.flatMap((pod) => pod.members.map((m) => `${m.id}@${spec.name}`));
  // Several seats launch at once (seats/lanes.ts); each seat's own checks and fence stay in order,
  // and seats that would resume one conversation launch one after another.
  // Every seat in spec order, refused or not: what the failure's evidence shows.
  const all = await inLanes(
    names,
    LAUNCH_LANES,
    async (seat): Promise<UpSeat | RefusedSeat> => {
      const r = await launchSeat(engine.ports, seat);
      return r.ok
        ? { seat, outcome: 'launched', launched: r.launched }
        : r.code === 'SEAT_ALREADY_RUNNING'
          ? { seat, outcome: 'already_running' }
          : { seat, outcome: 'refused', code: r.code, message: r.message };
    },
    (seat) => conversationChain(engine, seat),
  );
  const seats = all.filter((s): s is UpSeat => s.outcome !== 'refused');
  const refused = all.filter((s): s is RefusedSeat => s.outcome === 'refused');
  const first = refused[0];
  if (first)
    return fail(
      first.code,
      `${refused.length} of ${all.length} seats of ${spec.name} did not launch: ${first.seat}: ${first.message}`,
      { evidence: { rig: spec.name, seats: all } },
    );
  return { ok: true, rig: spec.name, seats };
}

/** Seats bound to one conversation share a chain, so their launches never overlap. */
export function conversationChain(engine: Pick<Engine, 'store'>, seat: string): string {
  const row = engine.store.rigs.seat(seat);
  return row?.conversationId ? `${conversationRuntime(row.runtime)}:${row.conversationId}` : `seat:${seat}`;
}
