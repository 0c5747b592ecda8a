import { fail, type Result } from '../../../shared/errors';
import type { Engine } from '../engine';
import { RUNTIME_IDS } from '../runtimes';
import { loadRigSpec } from '../spec';
import { launchSeat, type LaunchResult } from './launch';

export interface UpSeatResult {
  seat: string;
  outcome: 'launched' | 'already_running' | 'refused';
  launched?: LaunchResult;
  code?: string;
  message?: string;
}

/** Validates the spec (nothing starts when it is wrong), records the rig, launches every seat. */
export async function upRig(
  engine: Engine,
  specPath: unknown,
): Promise<Result<{ rig: string; seats: UpSeatResult[] }>> {
  if (typeof specPath !== 'string' || specPath === '') return fail('BAD_USAGE', 'up needs the path of a rig spec');
  // Hosts added with `rigdesk hosts add` count as known, as well as the spec's own (hosts:).
  const loaded = loadRigSpec(specPath, {
    knownRuntimes: RUNTIME_IDS,
    knownHosts: engine.store.hosts.all().map((h) => h.name),
  });
  if (!loaded.ok) return loaded;
  const { spec } = loaded;
  engine.store.rigs.upsert(spec);
  engine.store.events.append('rig.up', { rig: spec.name }, { specPath: spec.specPath });
  const seats: UpSeatResult[] = [];
  for (const pod of spec.pods) {
    for (const m of pod.members) {
      const seat = `${m.id}@${spec.name}`;
      const r = await launchSeat(engine, seat);
      if (r.ok) seats.push({ seat, outcome: 'launched', launched: r.launched });
      else if (r.code === 'SEAT_ALREADY_RUNNING') seats.push({ seat, outcome: 'already_running' });
      else seats.push({ seat, outcome: 'refused', code: r.code, message: r.message });
    }
  }
  const refused = seats.filter((s) => s.outcome === 'refused');
  if (refused.length > 0)
    return fail(
      refused[0]!.code as never,
      `${refused.length} of ${seats.length} seats of ${spec.name} did not launch: ${refused[0]!.seat}: ${refused[0]!.message}`,
      { evidence: { rig: spec.name, seats } },
    );
  return { ok: true, rig: spec.name, seats };
}
