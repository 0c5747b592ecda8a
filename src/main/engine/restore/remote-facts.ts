import type { Ports } from '../ports';
import { answerOnHost, probeKey, type Probe, type ProbeAnswer } from '../hosts/evidence-batch';
import { hostUnreachable } from '../hosts/merge';
import type { Roster } from '../roster/types';
import { keepsConversations, runtimeById } from '../runtimes';
import type { EvidenceIO } from '../runtimes/types';
import type { SeatRow } from '../store';
import type { TranscriptFact } from './decide';

/**
 * Restore's facts for seats on other hosts, read from THAT host (a conversation is (host,
 * runtime, id)): whether the host answers, and whether each conversation's transcript exists
 * there. The runtime adapters say where a transcript lives; their questions are answered over
 * the host's shared ssh connection, one round trip for every seat of the host together
 * (hosts/evidence-batch.ts). A host that does not answer refuses its seats: nothing is decided
 * from missing evidence, nothing is created and nothing is ended.
 */

export interface RemoteGate {
  /** The seat is refused before any plan: unknown host, host not answering. */
  refusal?: {
    code: 'HOST_NOT_FOUND' | 'HOST_UNREACHABLE';
    why: string;
    evidence: Record<string, unknown>;
  };
  /** The transcript fact read on the host (absent when there is no conversation to look for). */
  transcript?: TranscriptFact;
}

const unreachable = (seat: SeatRow, reason: string): RemoteGate => ({
  refusal: {
    code: 'HOST_UNREACHABLE',
    why: `host ${seat.host} does not answer (${reason}); ${seat.seat} was not restored and nothing of it was changed`,
    evidence: { host: seat.host, seat: seat.seat, reason },
  },
});

export async function remoteGates(
  ports: Pick<Ports, 'hosts' | 'seatHome'>,
  roster: Roster,
  seats: readonly { row: SeatRow; conversationId: string | null }[],
): Promise<Map<string, RemoteGate>> {
  const gates = new Map<string, RemoteGate>();
  type Question = { seed: Probe[]; ask: (io: EvidenceIO, known: ReadonlyMap<string, ProbeAnswer>) => TranscriptFact };
  const byHost = new Map<string, Map<string, Question>>();
  for (const { row, conversationId } of seats) {
    if (row.host === 'local') continue;
    const adapter = runtimeById(row.runtime);
    if (!ports.hosts.get(row.host)) {
      gates.set(row.seat, {
        refusal: {
          code: 'HOST_NOT_FOUND',
          why: `${row.seat} runs on host "${row.host}", which Rigdesk does not know`,
          evidence: { host: row.host },
        },
      });
      continue;
    }
    const down = hostUnreachable(roster, row.host);
    if (down !== undefined) {
      gates.set(row.seat, unreachable(row, down));
      continue;
    }
    if (conversationId === null || !keepsConversations(row.runtime)) {
      gates.set(row.seat, {});
      continue;
    }
    // On another host only the seat's own home setting is known (Ports.seatHome); without one,
    // or for a runtime with no findable transcript, the resume itself will tell (as locally).
    const home = ports.seatHome(row);
    if (!adapter?.transcriptPath || !home) {
      gates.set(row.seat, { transcript: { state: 'unknown' } });
      continue;
    }
    const access: Probe = { op: 'access', path: home };
    const q = byHost.get(row.host) ?? new Map<string, Question>();
    q.set(row.seat, {
      seed: [access],
      ask: (io, known) => {
        const p = adapter.transcriptPath!(home, row.cwd, conversationId, io);
        if (p) return { state: 'present', path: p };
        // As locally: only a home that can be read makes "missing" a fact.
        const a = known.get(probeKey(access));
        if (a?.status === 5) return { state: 'unreadable', error: `EACCES ${home} on ${row.host}` };
        if (!a) return { state: 'unreadable', error: `no answer about ${home} on ${row.host}` };
        return { state: 'missing', looked: `${row.host}:${home}` };
      },
    });
    byHost.set(row.host, q);
  }
  await Promise.all(
    [...byHost].map(async ([name, questions]) => {
      const host = ports.hosts.get(name)!;
      const r = await answerOnHost(host.exec, questions);
      for (const seat of questions.keys()) {
        const row = seats.find((s) => s.row.seat === seat)!.row;
        if (!r.ok) {
          gates.set(
            seat,
            r.unreachable
              ? unreachable(row, r.reason)
              : { transcript: { state: 'unreadable', error: `on ${name}: ${r.reason}` } },
          );
          continue;
        }
        const a = r.answers.get(seat)!;
        gates.set(seat, { transcript: 'state' in a ? a : { state: 'unreadable', error: `on ${name}: ${a.error}` } });
      }
    }),
  );
  return gates;
}
