import { type KeyboardEvent, useEffect, useState } from 'react';
import type { DecisionChoice, HistoryItem, PromptChoice, PromptItem } from '../../../shared/contract';
import { answerPrompt, call, decide, focusSeat, focusedPrompt, WINDOW_REASON } from '../state/actions';
import { hasEvidence } from '../state/seat-state';
import { type Decision, useWindow } from '../state/store';
import { EndedTurns } from './EndedTurns';

/**
 * What only the person may settle: seats waiting now (a permission prompt, a question, a usage
 * limit; live from their screens), the open restore decisions, and what was answered before (from
 * the event log). Each answer goes to the engine, which checks it again and records it.
 */
export function DecisionsPanel() {
  const prompts = useWindow((s) => s.prompts);
  const decisions = useWindow((s) => s.decisions);
  const open = decisions.filter((d) => !d.state || d.state === 'open');
  const count = prompts.length + open.length;
  return (
    <section className="panel decisions" aria-label="Decisions">
      {count === 0 && (
        <p className="empty" data-testid="decisions-none">
          Nothing waits for you. A seat that asks for permission or a restore that needs a choice shows up here.
        </p>
      )}
      {prompts.map((p) => (
        <PromptCard key={`${p.seat} ${p.fingerprint ?? p.reason}`} p={p} />
      ))}
      {open.map((d) => (
        <DecisionCard key={d.id} d={d} />
      ))}
      <EndedTurns />
      <History />
    </section>
  );
}

/** A choice's words when the prompt's own are not known. */
const LABEL: Record<PromptChoice, string> = {
  approve: 'Approve',
  allow_always: 'Allow always',
  deny: 'Deny',
  deny_with_message: 'Deny with a message…',
  option: 'Option',
  other: 'Other…',
};
const KEYS: Partial<Record<PromptChoice, string>> = {
  approve: 'a or y · Ctrl+Shift+Enter',
  allow_always: 'A (Shift+a)',
  deny: 'd or n · Ctrl+Shift+Backspace',
  deny_with_message: 'm',
  other: 'o',
};

/** The buttons of a card: one per offer (each option of a question its own), else per choice. */
function buttonsOf(p: PromptItem): { choice: PromptChoice; option?: number; text: string; title?: string }[] {
  if (!p.offers) return p.choices.map((c) => ({ choice: c, text: LABEL[c], title: KEYS[c] }));
  return p.offers.map((o) => ({
    choice: o.choice,
    ...(o.option !== undefined ? { option: o.option } : {}),
    // A question's option says itself; the other buttons say what they do, the prompt's words in the tooltip.
    text: o.choice === 'option' ? `${o.option}. ${o.label}` : LABEL[o.choice],
    title: [o.choice === 'deny_with_message' || o.choice === 'option' ? undefined : o.label, KEYS[o.choice]]
      .filter(Boolean)
      .join(' · '),
  }));
}

export function PromptCard({ p }: { p: PromptItem }) {
  const [busy, setBusy] = useState(false);
  const [writing, setWriting] = useState(false);
  const [message, setMessage] = useState('');
  const focused = useWindow((s) => s.focusedDecision === p.seat || (!s.focusedDecision && focusedPrompt() === p));
  const [writingFor, setWritingFor] = useState<'deny_with_message' | 'other'>('deny_with_message');
  const answer = async (choice: PromptChoice, text?: string, option?: number) => {
    if (busy || !p.choices.includes(choice)) return;
    if ((choice === 'deny_with_message' || choice === 'other') && text === undefined) {
      setWritingFor(choice);
      return setWriting(true);
    }
    setBusy(true);
    // A refusal leaves the buttons usable once the next push shows what the seat asks now.
    if (!(await answerPrompt(p, choice, text, option))) setBusy(false);
  };
  const onKey = (e: KeyboardEvent) => {
    if (e.target !== e.currentTarget) return;
    if (e.key === 'a' || e.key === 'y') void answer('approve');
    else if (e.key === 'A') void answer('allow_always');
    else if (e.key === 'd' || e.key === 'n') void answer('deny');
    else if (e.key === 'm' && p.choices.includes('deny_with_message')) {
      e.preventDefault();
      void answer('deny_with_message');
    } else if (e.key === 'o' && p.choices.includes('other')) {
      e.preventDefault();
      void answer('other');
    } else if (/^[1-9]$/.test(e.key) && p.offers?.some((o) => o.option === Number(e.key)))
      void answer('option', undefined, Number(e.key));
  };
  return (
    <article
      className={`card prompt${focused ? ' focused' : ''}`}
      data-decision-card=""
      data-prompt={p.seat}
      data-seat={p.seat}
      data-reason={p.reason}
      // biome-ignore lint/a11y/noNoninteractiveTabindex: a focused card is what the approve and deny keys answer
      tabIndex={0}
      aria-label={`${p.seat} needs input: ${p.reason.replace(/_/g, ' ')}`}
      onFocus={() => useWindow.setState({ focusedDecision: p.seat })}
      onKeyDown={onKey}
    >
      <h3>
        <button type="button" className="link" onClick={() => focusSeat(p.seat)}>
          {p.seat}
        </button>{' '}
        <span className="reason">
          needs input: {p.reason.replace(/_/g, ' ')}
          {p.tool ? `: ${p.tool}` : ''}
        </span>
      </h3>
      <pre className="evidence" data-testid="prompt-screen">
        {p.screen.join('\n')}
      </pre>
      <div className="buttons">
        {buttonsOf(p).map((b) => (
          <button
            key={`${b.choice} ${b.option ?? ''}`}
            type="button"
            data-choice={b.choice}
            data-option={b.option}
            className={b.choice === 'deny' || b.choice === 'deny_with_message' ? 'danger' : 'primary'}
            disabled={busy}
            title={b.title}
            onClick={() => void answer(b.choice, undefined, b.option)}
          >
            {b.text}
          </button>
        ))}
        {p.note && <span className="note">{p.note}</span>}
      </div>
      {writing && (
        <form
          className="deny-message"
          onSubmit={(e) => {
            e.preventDefault();
            if (message.trim()) void answer(writingFor, message.trim());
          }}
        >
          <label className="field">
            <span>{writingFor === 'other' ? 'Your answer' : `What should ${p.seat} do instead?`}</span>
            <textarea
              aria-label={`message to ${p.seat}`}
              value={message}
              // biome-ignore lint/a11y/noAutofocus: the person asked to write the message just now
              autoFocus
              rows={3}
              onChange={(e) => setMessage(e.target.value)}
              onKeyDown={(e) => {
                if (e.key === 'Enter' && !e.shiftKey) {
                  e.preventDefault();
                  if (message.trim()) void answer(writingFor, message.trim());
                } else if (e.key === 'Escape') setWriting(false);
              }}
            />
          </label>
          <div className="buttons">
            <button
              type="submit"
              className={writingFor === 'other' ? 'primary' : 'danger'}
              disabled={busy || !message.trim()}
            >
              {writingFor === 'other' ? 'Answer' : 'Deny and send'}
            </button>
            <button type="button" onClick={() => setWriting(false)}>
              Cancel
            </button>
          </div>
        </form>
      )}
    </article>
  );
}

export function DecisionCard({ d }: { d: Decision }) {
  const [reason, setReason] = useState(WINDOW_REASON);
  const [busy, setBusy] = useState(false);
  const answer = async (choice: DecisionChoice) => {
    setBusy(true);
    if (!(await decide(d, choice, reason))) setBusy(false);
  };
  return (
    // biome-ignore lint/a11y/noNoninteractiveTabindex: a focused card is what the approve and deny keys answer
    <article className="card restore" data-decision-card="" data-decision={d.id} data-seat={d.seat} tabIndex={0}>
      <h3>
        <button type="button" className="link" onClick={() => focusSeat(d.seat)}>
          {d.seat}
        </button>{' '}
        <span className="reason">
          {d.kind === 'budget' ? 'budget' : 'restore'}: {String(d.reason).replace(/_/g, ' ')}
        </span>
      </h3>
      {d.conversationId && <p className="muted">conversation {d.conversationId}</p>}
      {/* Evidence with nothing in it says nothing: no empty box. */}
      {hasEvidence(d.evidence) && <pre className="evidence">{JSON.stringify(d.evidence, null, 2)}</pre>}
      <label className="field">
        <span>Reason (recorded)</span>
        <input aria-label="reason" value={reason} onChange={(e) => setReason(e.target.value)} />
      </label>
      <div className="buttons">
        {d.choices.map((c: DecisionChoice) => (
          <button key={c} type="button" disabled={busy || !reason.trim()} onClick={() => void answer(c)}>
            {c.replace(/_/g, ' ')}
          </button>
        ))}
      </div>
    </article>
  );
}

function History() {
  const tick = useWindow((s) => s.historyTick);
  const [items, setItems] = useState<HistoryItem[]>([]);
  // biome-ignore lint/correctness/useExhaustiveDependencies: read again each time an answer lands (historyTick)
  useEffect(() => {
    let live = true;
    void call('workspace.history', { limit: 30 }, 'the Decisions history').then((r) => {
      if (live && r?.ok) setItems(r.items);
    });
    return () => {
      live = false;
    };
  }, [tick]);
  if (items.length === 0) return null;
  return (
    <section className="history" aria-label="answered">
      <h3>Answered</h3>
      <ol>
        {items.map((h) => (
          <li key={h.seq} data-history={h.kind}>
            <time dateTime={new Date(h.at).toISOString()}>{new Date(h.at).toLocaleTimeString()}</time>{' '}
            <span className="seat">{h.seat}</span>{' '}
            <span className={`choice c-${h.kind === 'prompt_refused' ? 'refused' : h.choice}`}>
              {h.kind === 'prompt_refused' ? `refused (${h.code ?? '?'})` : h.choice.replace(/_/g, ' ')}
            </span>{' '}
            <span className="what">{h.what}</span>
            {h.by && <span className="by"> by {h.by}</span>}
            {h.reason && <span className="why"> — {h.reason}</span>}
          </li>
        ))}
      </ol>
    </section>
  );
}
