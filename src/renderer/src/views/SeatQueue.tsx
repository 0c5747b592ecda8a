import { useCallback, useEffect, useState } from 'react';
import type { QueueItem } from '../../../shared/contract/activity';
import type { Transport } from '../transport';

/**
 * A seat's queue on its page: the open work for it, oldest first, and a way to add more. The
 * engine wakes the seat about these items itself (once per occupant and set of items).
 */
export function SeatQueue({ seat, transport }: { seat: string; transport: Transport }) {
  const [items, setItems] = useState<QueueItem[]>([]);
  const [text, setText] = useState('');
  const [note, setNote] = useState('');
  const load = useCallback(async () => {
    const r = await transport.request('queue.list', { seat });
    if (r.ok) setItems((r as unknown as { items: QueueItem[] }).items);
  }, [seat, transport]);
  useEffect(() => {
    void load();
    const t = setInterval(() => void load(), 2000);
    return () => clearInterval(t);
  }, [load]);
  const add = async () => {
    const r = await transport.request('queue.add', { seat, text });
    setNote(r.ok ? 'queued' : `${r.code}: ${r.message}`);
    if (r.ok) setText('');
    await load();
  };
  return (
    <section className="seat-queue" aria-label={`queue of ${seat}`}>
      <h3>Queue</h3>
      {items.length === 0 ? (
        <p className="empty">Nothing queued.</p>
      ) : (
        <ol>
          {items.map((i) => (
            <li key={i.id} data-queue-item={i.id}>
              <span className={`badge q-${i.state}`}>{i.state}</span> #{i.id} {i.body}
              {i.note ? <em> — {i.note}</em> : null}
            </li>
          ))}
        </ol>
      )}
      <form onSubmit={(e) => (e.preventDefault(), void add())}>
        <input
          aria-label="work to queue"
          placeholder="queue work for this seat"
          value={text}
          onChange={(e) => setText(e.target.value)}
        />
        <button type="submit" disabled={!text.trim()}>
          Queue
        </button>
        <span className="note" role="status">
          {note}
        </span>
      </form>
    </section>
  );
}
