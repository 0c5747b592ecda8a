import { fail, type Result } from '../../../shared/errors';
import type { Ports } from '../ports';
import { answerOnHost } from '../hosts/evidence-batch';
import { isLocal } from '../hosts/types';
import { realOrSame } from '../custody/cwd';
import { runtimeById } from '../runtimes';
import type { EvidenceIO, RuntimeAdapter } from '../runtimes/types';
import type { SeatRow } from '../store/seats';

/** How long an end waits for an agent to take up its conversation (Gemini takes a few seconds). */
export const TAKING_UP_WAIT_MS = 30_000;
const POLL_MS = 200;

type Seat = Pick<SeatRow, 'seat' | 'runtime' | 'env' | 'cwd'> & { host?: string };
/** What the wait reads with: the runtime adapter's two answers, both present. */
type Adapter = Required<Pick<RuntimeAdapter, 'takingUp' | 'transcriptPath'>>;

/** One look: the transcript's path while it says the agent is taking up the conversation, else undefined. */
type Look = () => Promise<string | undefined>;

/**
 * Before a seat's agent is ended (stop, restart, fresh, down): waits while its transcript says it
 * is part way through taking up the conversation (RuntimeAdapter.takingUp), since an end then
 * leaves that conversation unresumable. Refuses, with nothing stopped, when it is still doing so
 * after `timeoutMs`. A seat on another host has its transcript read on that host.
 */
export async function untilTakenUp(
  ports: Pick<Ports, 'clock' | 'fs' | 'hosts' | 'io' | 'seatHome'>,
  seat: Seat,
  conversationId: string | null | undefined,
  timeoutMs = TAKING_UP_WAIT_MS,
): Promise<Result<{ waitedMs: number }>> {
  const adapter = runtimeById(seat.runtime);
  const home = ports.seatHome(seat);
  if (!adapter?.takingUp || !adapter.transcriptPath || !conversationId || !home) return { ok: true, waitedMs: 0 };
  const a: Adapter = { takingUp: adapter.takingUp, transcriptPath: adapter.transcriptPath };
  const look = isLocal(seat.host)
    ? lookHere(ports, a, seat, home, conversationId)
    : lookOnHost(ports, a, seat, home, conversationId);
  const { clock } = ports;
  const start = clock.now();
  for (let path = await look(); path; path = await look()) {
    const waitedMs = clock.now() - start;
    if (waitedMs >= timeoutMs)
      return fail(
        'CONVERSATION_LOADING',
        `${seat.seat}'s ${adapter.displayName} is still taking up ${conversationId} after ${Math.round(waitedMs / 1000)} s; ending it now would leave that conversation unresumable, so nothing was stopped`,
        {
          hint: `Wait until ${seat.seat}'s screen shows its conversation, then run the command again.`,
          evidence: { conversationId, transcript: path, waitedMs, ...(isLocal(seat.host) ? {} : { host: seat.host }) },
        },
      );
    await clock.sleep(POLL_MS);
  }
  return { ok: true, waitedMs: clock.now() - start };
}

/** Whether the transcript (found through `io`) says so; nothing readable says so (the end goes ahead). */
function taking(a: Adapter, io: EvidenceIO, find: () => string | undefined): string | undefined {
  const path = find();
  return path && a.takingUp(io.readFile(path)) ? path : undefined;
}

function lookHere(ports: Pick<Ports, 'fs' | 'io'>, a: Adapter, seat: Seat, home: string, id: string): Look {
  const { io, fs } = ports;
  return async () => {
    try {
      return taking(a, io, () => a.transcriptPath(home, realOrSame(fs, seat.cwd), id, io));
    } catch {
      return undefined;
    }
  };
}

/**
 * On another host, over its shared ssh connection: the first look finds the transcript (a few
 * round trips), each later one reads that file alone (one). A host that does not answer says
 * nothing, as an unreadable file does here: the end goes ahead, and itself meets the host.
 */
function lookOnHost(ports: Pick<Ports, 'hosts'>, a: Adapter, seat: Seat, home: string, id: string): Look {
  let found: string | undefined;
  return async () => {
    const host = seat.host ? ports.hosts.get(seat.host) : undefined;
    if (!host) return undefined;
    const ask = (io: EvidenceIO) => ({
      path: taking(a, io, () => found ?? (found = a.transcriptPath(home, seat.cwd, id, io))),
    });
    const r = await answerOnHost(host.exec, new Map([[seat.seat, { ask }]]));
    const answer = r.ok ? r.answers.get(seat.seat) : undefined;
    return answer && 'path' in answer ? answer.path : undefined;
  };
}
