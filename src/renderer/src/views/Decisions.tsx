import { useState } from 'react';
import { reload, useApp, type DecisionItem } from '../store';
import type { Transport } from '../transport';

/** What only the person may settle; each answer goes to the engine, which records it. */
export function DecisionsView({ transport }: { transport: Transport }) {
  const decisions = useApp((s) => s.decisions);
  const open = decisions === 'unavailable' ? [] : decisions.filter((d) => !d.state || d.state === 'open');
  if (open.length === 0) return <p className="empty" data-testid="decisions-none">No decisions waiting: none.</p>;
  return (
    <ul className="decisions">
      {open.map((d) => <Decision key={d.id} d={d} transport={transport} />)}
    </ul>
  );
}

function Decision({ d, transport }: { d: DecisionItem; transport: Transport }) {
  const [reason, setReason] = useState('answered from the Rigdesk window');
  const [note, setNote] = useState('');
  const answer = async (choice: string) => {
    const r = await transport.request('decide', { id: d.id, choice, reason });
    setNote(r.ok ? `answered: ${choice}` : `${r.code}: ${r.message}`);
    await reload(transport);
  };
  return (
    <li className="decision" data-decision={d.id}>
      <h3>{d.seat}: {d.reason.replace(/_/g, ' ')}</h3>
      {d.conversationId && <p>conversation {d.conversationId}</p>}
      {d.evidence && <pre className="evidence">{JSON.stringify(d.evidence, null, 2)}</pre>}
      <input aria-label="reason" value={reason} onChange={(e) => setReason(e.target.value)} />
      {d.choices.map((c) => <button key={c} onClick={() => void answer(c)}>{c.replace(/_/g, ' ')}</button>)}
      <span className="note" role="status">{note}</span>
    </li>
  );
}
