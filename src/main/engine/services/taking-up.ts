import { fail, type Result } from '../../../shared/errors';
import type { Engine } from '../engine';
import { isLocal } from '../hosts/types';
import { realOrSame } from '../restore/facts';
import { runtimeById } from '../runtimes';
import type { SeatRow } from '../store/seats';

/** How long an end waits for an agent to take up its conversation (Gemini takes a few seconds). */
export const TAKING_UP_WAIT_MS = 30_000;
const POLL_MS = 200;

type Seat = Pick<SeatRow, 'seat' | 'runtime' | 'env' | 'cwd'> & { host?: string };

/**
 * Before a seat's agent is ended (stop, restart, fresh, down): waits while its transcript says it
 * is part way through taking up the conversation (RuntimeAdapter.takingUp), since an end then
 * leaves that conversation unresumable. Refuses, with nothing stopped, when it is still doing so
 * after `timeoutMs`. Read on this machine only: a seat on another host is not waited for.
 */
export async function untilTakenUp(
  engine: Engine,
  seat: Seat,
  conversationId: string | null | undefined,
  timeoutMs = TAKING_UP_WAIT_MS,
): Promise<Result<{ waitedMs: number }>> {
  const adapter = runtimeById(seat.runtime);
  const home = engine.seatHome(seat);
  if (!adapter?.takingUp || !adapter.transcriptPath || !conversationId || !home || !isLocal(seat.host))
    return { ok: true, waitedMs: 0 };
  const { clock, io } = engine.deps;
  const taking = (): string | undefined => {
    try {
      const path = adapter.transcriptPath!(home, realOrSame(seat.cwd), conversationId, io);
      return path && adapter.takingUp!(io.readFile(path)) ? path : undefined;
    } catch {
      return undefined; // nothing readable says so: the end goes ahead as asked
    }
  };
  const start = clock.now();
  for (let path = taking(); path; path = taking()) {
    const waitedMs = clock.now() - start;
    if (waitedMs >= timeoutMs)
      return fail(
        'CONVERSATION_LOADING',
        `${seat.seat}'s ${adapter.displayName} is still taking up ${conversationId} after ${Math.round(waitedMs / 1000)} s; ending it now would leave that conversation unresumable, so nothing was stopped`,
        {
          hint: `Wait until ${seat.seat}'s screen shows its conversation, then run the command again.`,
          evidence: { conversationId, transcript: path, waitedMs },
        },
      );
    await clock.sleep(POLL_MS);
  }
  return { ok: true, waitedMs: clock.now() - start };
}
