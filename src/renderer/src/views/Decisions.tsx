import type { DecisionChoice } from '../../../shared/contract';
import { useState } from 'react';
import type { PromptItem } from '../../../shared/contract';
import { hashFor, reload, useApp, type DecisionItem } from '../store';
import type { Transport } from '../transport';

/**
 * What only the person may settle: seats waiting right now (a permission prompt, a question, a
 * usage limit; live, from the seats' screens) and the stored restore decisions. Each answer goes
 * to the engine, which checks it again and records it.
 */
export function DecisionsView({ transport }: { transport: Transport }) {
  const decisions = useApp((s) => s.decisions);
  const prompts = useApp((s) => s.prompts);
  const open = decisions === 'unavailable' ? [] : decisions.filter((d) => !d.state || d.state === 'open');
  if (open.length === 0 && prompts.length === 0)
    return (
      <p className="empty" data-testid="decisions-none">
        No decisions waiting: none.
      </p>
    );
  return (
    <div className="decisions-page">
      {prompts.length > 0 && (
        <section aria-label="waiting now">
          <h2>Waiting now</h2>
          <ul className="decisions">
            {prompts.map((p) => (
              <LivePrompt key={`${p.seat} ${p.fingerprint ?? p.reason}`} p={p} transport={transport} />
            ))}
          </ul>
        </section>
      )}
      {open.length > 0 && (
        <section aria-label="restore decisions">
          <h2>Restore decisions</h2>
          <ul className="decisions">
            {open.map((d) => (
              <Decision key={d.id} d={d} transport={transport} />
            ))}
          </ul>
        </section>
      )}
    </div>
  );
}

const LABEL = { approve: 'Approve', deny: 'Deny' } as const;

function LivePrompt({ p, transport }: { p: PromptItem; transport: Transport }) {
  const [note, setNote] = useState('');
  const [busy, setBusy] = useState(false);
  const answer = async (choice: 'approve' | 'deny') => {
    setBusy(true);
    const r = await transport.request('answerPrompt', {
      seat: p.seat,
      choice,
      reason: 'answered from the Rigdesk window',
      ...(p.fingerprint ? { fingerprint: p.fingerprint } : {}),
    });
    setNote(r.ok ? `${LABEL[choice]} sent` : `${r.code}: ${r.message}`);
    // A refusal leaves the buttons usable once the next push shows what the seat asks now.
    if (!r.ok) setBusy(false);
  };
  return (
    <li className="decision prompt" data-prompt={p.seat} data-reason={p.reason}>
      <h3>
        <a href={hashFor({ page: 'seat', seat: p.seat })}>{p.seat}</a>: needs input: {p.reason.replace(/_/g, ' ')}
      </h3>
      <pre className="evidence" data-testid="prompt-screen">
        {p.screen.join('\n')}
      </pre>
      {p.choices.map((c) => (
        <button key={c} className={c === 'deny' ? 'danger' : undefined} disabled={busy} onClick={() => void answer(c)}>
          {LABEL[c]}
        </button>
      ))}
      {p.note && <span className="note">{p.note}</span>}
      <span className="note" role="status">
        {note}
      </span>
    </li>
  );
}

function Decision({ d, transport }: { d: DecisionItem; transport: Transport }) {
  const [reason, setReason] = useState('answered from the Rigdesk window');
  const [note, setNote] = useState('');
  const answer = async (choice: DecisionChoice) => {
    const r = await transport.request('decide', { id: d.id, choice, reason });
    setNote(r.ok ? `answered: ${choice}` : `${r.code}: ${r.message}`);
    await reload(transport);
  };
  return (
    <li className="decision" data-decision={d.id}>
      <h3>
        {d.seat}: {d.reason.replace(/_/g, ' ')}
      </h3>
      {d.conversationId && <p>conversation {d.conversationId}</p>}
      {d.evidence && <pre className="evidence">{JSON.stringify(d.evidence, null, 2)}</pre>}
      <input aria-label="reason" value={reason} onChange={(e) => setReason(e.target.value)} />
      {d.choices.map((c) => (
        <button key={c} onClick={() => void answer(c)}>
          {c.replace(/_/g, ' ')}
        </button>
      ))}
      <span className="note" role="status">
        {note}
      </span>
    </li>
  );
}
