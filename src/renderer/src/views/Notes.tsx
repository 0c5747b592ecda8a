import type { ReactNode } from 'react';
import { useEffect } from 'react';
import { dismissNote, type Note, useWindow } from '../state/store';

/** How long a note that only says what happened stays; a refusal stays until it is dismissed. */
export const DONE_MS = 6000;

/** What the window says after an action; a refusal stays, with the engine's code, message and hint. */
export function Notes() {
  const notes = useWindow((s) => s.notes);
  return (
    <div className="notes" aria-live="polite">
      {notes.map((n) => (
        <NoteView key={n.id} n={n} />
      ))}
    </div>
  );
}

function NoteView({ n }: { n: Note }) {
  useEffect(() => {
    if (n.kind !== 'done') return;
    const t = setTimeout(() => dismissNote(n.id), DONE_MS);
    return () => clearTimeout(t);
  }, [n]);
  if (n.kind === 'done')
    return (
      <div className="note done" role="status">
        {n.text}
      </div>
    );
  return <Refusal what={n.what} failure={n.failure} onClose={() => dismissNote(n.id)} />;
}

/** A refusal as data: nothing changed, and here is why and what to do next. */
export function Refusal({
  what,
  failure,
  onClose,
  children,
}: {
  what: string;
  failure: { code: string; message: string; hint?: string };
  onClose?: () => void;
  /** What the refusal's evidence shows, drawn under its hint (a merge's conflicting files). */
  children?: ReactNode;
}) {
  return (
    <div className="note refusal" role="alert" data-refusal={failure.code}>
      <div className="refusal-head">
        <span className="what">{what}</span>
        <code className="code">{failure.code}</code>
        {onClose && (
          <button type="button" className="icon" aria-label="Dismiss" onClick={onClose}>
            ✕
          </button>
        )}
      </div>
      <p className="message">{failure.message}</p>
      {failure.hint && <p className="hint">{failure.hint}</p>}
      {children}
    </div>
  );
}
