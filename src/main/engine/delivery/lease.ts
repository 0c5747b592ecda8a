import type { Engine } from '../engine';

/**
 * The per-seat lease: every sender takes a ticket, and only the lowest live ticket of a seat may
 * type. The CLI, the window and the queue therefore never interleave two messages, and they go in
 * the order they asked. A ticket whose holder process is gone (crashed) is dropped by the next.
 */
export async function withSeatTurn<T>(
  engine: Engine,
  seat: string,
  deadline: number,
  body: () => Promise<T>,
): Promise<{ ok: true; value: T } | { ok: false; waitedMs: number }> {
  const tickets = engine.store.tickets;
  const self = engine.deps.proc.read(engine.deps.selfPid);
  const started = engine.now();
  const id = tickets.take(seat, { pid: engine.deps.selfPid, start: self?.startTime ?? null }, started);
  try {
    for (;;) {
      const live = tickets.ahead(seat, id).filter((t) => {
        const p = engine.deps.proc.read(t.holderPid);
        const alive = p !== undefined && (t.holderStart === null || p.startTime === t.holderStart);
        if (!alive) tickets.drop(t.id);
        return alive;
      });
      if (live.length === 0) break;
      if (engine.now() >= deadline) return { ok: false, waitedMs: engine.now() - started };
      await engine.deps.clock.sleep(50);
    }
    return { ok: true, value: await body() };
  } finally {
    tickets.drop(id);
  }
}
