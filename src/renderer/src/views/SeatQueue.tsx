import { useCallback, useEffect, useState } from 'react';
import type { ClientAnswer } from '../../../shared/contract';
import { call, noteQueued } from '../state/actions';
import { useWindow } from '../state/store';

type QueueRow = ClientAnswer<'queue.list'>['items'][number];

/**
 * A seat's queue: the open work for it, oldest first, and a way to add more. The engine wakes the
 * seat about these items itself (once per occupant and set of items); the list is read again when
 * a queue event for the seat arrives.
 */
export function SeatQueue({ seat }: { seat: string }) {
  const [items, setItems] = useState<QueueRow[]>([]);
  const [text, setText] = useState('');
  const changed = useWindow((s) => s.events.filter((e) => e.seat === seat && e.kind.startsWith('queue.')).length);
  const load = useCallback(async () => {
    const r = await call('queue.list', { seat }, `queue of ${seat}`);
    if (r?.ok) setItems(r.items);
  }, [seat]);
  // biome-ignore lint/correctness/useExhaustiveDependencies: read again when a queue event of this seat lands
  useEffect(() => {
    void load();
  }, [load, changed]);
  const add = async () => {
    if (await noteQueued(seat, text)) setText('');
    await load();
  };
  return (
    <section className="seat-queue" aria-label={`queue of ${seat}`}>
      <h3>Queue</h3>
      {items.length === 0 ? (
        <p className="empty">Nothing queued.</p>
      ) : (
        <ol>
          {items.map((i: QueueRow) => (
            <li key={i.id} data-queue-item={i.id}>
              <span className={`tag q-${i.state}`}>{i.state}</span> #{i.id} {i.body}
              {i.note ? <em> — {i.note}</em> : null}
            </li>
          ))}
        </ol>
      )}
      <form className="inline" onSubmit={(e) => (e.preventDefault(), void add())}>
        <input
          aria-label="work to queue"
          placeholder="queue work for this seat"
          value={text}
          onChange={(e) => setText(e.target.value)}
        />
        <button type="submit" disabled={!text.trim()}>
          Queue
        </button>
      </form>
    </section>
  );
}
