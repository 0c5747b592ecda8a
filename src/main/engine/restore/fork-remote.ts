import { fail, type Result } from '../../../shared/errors';
import type { Ports } from '../ports';
import { hostUnreachable } from '../hosts/merge';
import { hostGate } from '../hosts/gate';
import type { Roster } from '../roster/types';
import { runtimeById } from '../runtimes';
import type { SeatRow } from '../store';
import type { TranscriptFact } from './decide';
import { transcriptFact } from './facts';
import { remoteGates } from './remote-facts';

/**
 * The host-specific part of `rigdesk fork` (./fork.ts): a source seat on another host is forked
 * from THAT host's evidence, never this machine's. Its process, argv and live-state claims come from
 * the host's part of the roster (the roster port merges it; custody reads the owning host), and the
 * transcript's existence is asked on the host through the runtime adapter's own path rules, over
 * the host's shared connection (./remote-facts.ts, hosts/evidence-batch.ts). A host that is not
 * known, or does not answer, refuses before anything is recorded or created (fail closed).
 */

const NOTHING = 'nothing was created';

/**
 * Before the roster: a known host. With a roster: the host
 * answered in it. `undefined` for a local seat or a host that passes.
 */
export function forkHostGate(ports: Pick<Ports, 'hosts'>, source: SeatRow, roster?: Roster) {
  return hostGate(
    source,
    'fork',
    {
      known: ports.hosts.get(source.host) !== undefined,
      unreachable: roster ? hostUnreachable(roster, source.host) : undefined,
    },
    NOTHING,
  );
}

/**
 * Whether X's transcript exists where the source seat keeps it: on this machine for a local seat,
 * asked on the seat's host (one round trip) for a remote one. On a host only the seat's own home
 * setting (its spec env) is known; without one there is no place to look, and a fork that cannot
 * see X's transcript is refused as locally (a resume may let the runtime tell; a fork may not guess).
 */
export async function sourceTranscript(
  ports: Pick<Ports, 'fs' | 'hosts' | 'io' | 'seatHome'>,
  roster: Roster,
  source: SeatRow,
  conversationId: string,
): Promise<Result<{ fact: TranscriptFact }>> {
  if (source.host === 'local') return { ok: true, fact: transcriptFact(ports, source, conversationId) };
  const gate = (await remoteGates(ports, roster, [{ row: source, conversationId }])).get(source.seat);
  if (gate?.refusal) {
    const reason = String(gate.refusal.evidence.reason ?? gate.refusal.why);
    const why =
      gate.refusal.code === 'HOST_UNREACHABLE' ? `host ${source.host} does not answer (${reason})` : gate.refusal.why;
    return fail(gate.refusal.code, `${why}; fork of ${source.seat} was refused and ${NOTHING}`, {
      hint: `Rigdesk retries with back-off; check with rigdesk hosts check ${source.host}.`,
      evidence: { ...gate.refusal.evidence, seat: source.seat, operation: 'fork' },
    });
  }
  const fact = gate?.transcript ?? { state: 'unknown' as const };
  if (fact.state === 'unknown') {
    const homeVar = runtimeById(source.runtime)?.homeEnvVar;
    return fail(
      'EVIDENCE_UNREADABLE',
      `cannot tell where ${source.seat} keeps its conversations on ${source.host}${homeVar ? ` (its spec env sets no ${homeVar})` : ''}, so the transcript of ${conversationId} cannot be checked there; ${NOTHING}`,
      {
        ...(homeVar
          ? {
              hint: `Set ${homeVar} in the member's env in the rig spec (the folder on ${source.host}), then fork again.`,
            }
          : {}),
        evidence: { host: source.host, transcript: fact, ...(homeVar ? { homeEnvVar: homeVar } : {}) },
      },
    );
  }
  return { ok: true, fact };
}
