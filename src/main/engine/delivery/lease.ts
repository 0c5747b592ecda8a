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
  const { db } = engine.store;
  const self = engine.deps.proc.read(engine.deps.selfPid);
  const started = engine.now();
  const id = Number(
    db
      .prepare('INSERT INTO delivery_tickets (seat, holder_pid, holder_start, created_at) VALUES (?, ?, ?, ?)')
      .run(seat, engine.deps.selfPid, self?.startTime ?? null, started).lastInsertRowid,
  );
  try {
    for (;;) {
      const ahead = db
        .prepare('SELECT id, holder_pid, holder_start FROM delivery_tickets WHERE seat = ? AND id < ? ORDER BY id')
        .all(seat, id) as { id: number; holder_pid: number; holder_start: string | null }[];
      const live = ahead.filter((t) => {
        const p = engine.deps.proc.read(t.holder_pid);
        const alive = p !== undefined && (t.holder_start === null || p.startTime === t.holder_start);
        if (!alive) db.prepare('DELETE FROM delivery_tickets WHERE id = ?').run(t.id);
        return alive;
      });
      if (live.length === 0) break;
      if (engine.now() >= deadline) return { ok: false, waitedMs: engine.now() - started };
      await engine.deps.clock.sleep(50);
    }
    return { ok: true, value: await body() };
  } finally {
    db.prepare('DELETE FROM delivery_tickets WHERE id = ?').run(id);
  }
}
