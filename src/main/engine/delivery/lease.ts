import type { Ports } from '../ports';

/**
 * The per-seat lease: every sender takes a ticket, and only the lowest live ticket of a seat may
 * type. The CLI, the window and the queue therefore never interleave two messages, and they go in
 * the order they asked. A ticket whose holder process is gone (crashed) is dropped by the next.
 */
export async function withSeatTurn<T>(
  ports: Pick<Ports, 'clock' | 'proc' | 'selfPid' | 'store'>,
  seat: string,
  deadline: number,
  body: () => Promise<T>,
): Promise<{ ok: true; value: T } | { ok: false; waitedMs: number }> {
  const tickets = ports.store.tickets;
  const self = ports.proc.read(ports.selfPid);
  const started = ports.clock.now();
  const id = tickets.take(seat, { pid: ports.selfPid, start: self?.startTime ?? null }, started);
  try {
    for (;;) {
      const live = tickets.ahead(seat, id).filter((t) => {
        const p = ports.proc.read(t.holderPid);
        const alive = p !== undefined && (t.holderStart === null || p.startTime === t.holderStart);
        if (!alive) tickets.drop(t.id);
        return alive;
      });
      if (live.length === 0) break;
      if (ports.clock.now() >= deadline) return { ok: false, waitedMs: ports.clock.now() - started };
      await ports.clock.sleep(50);
    }
    return { ok: true, value: await body() };
  } finally {
    tickets.drop(id);
  }
}
