import type { UpSeat } from '../../../shared/contract';
import { type ErrorCode, fail, type Result } from '../../../shared/errors';
import type { Engine } from '../engine';
import { RUNTIME_IDS } from '../runtimes';
import { loadRigSpec } from '../spec';
import { launchSeat } from '../seats/launch';
import { placeWorktrees } from '../seats/worktree';

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
  const seats: UpSeat[] = [];
  const refused: RefusedSeat[] = [];
  // Every seat in spec order, refused or not: what the failure's evidence shows.
  const all: (UpSeat | RefusedSeat)[] = [];
  for (const pod of spec.pods) {
    for (const m of pod.members) {
      const seat = `${m.id}@${spec.name}`;
      const r = await launchSeat(engine.ports, seat);
      const one: UpSeat | RefusedSeat = r.ok
        ? { seat, outcome: 'launched', launched: r.launched }
        : r.code === 'SEAT_ALREADY_RUNNING'
          ? { seat, outcome: 'already_running' }
          : { seat, outcome: 'refused', code: r.code, message: r.message };
      all.push(one);
      if (one.outcome === 'refused') refused.push(one);
      else seats.push(one);
    }
  }
  const first = refused[0];
  if (first)
    return fail(
      first.code,
      `${refused.length} of ${all.length} seats of ${spec.name} did not launch: ${first.seat}: ${first.message}`,
      { evidence: { rig: spec.name, seats: all } },
    );
  return { ok: true, rig: spec.name, seats };
}
