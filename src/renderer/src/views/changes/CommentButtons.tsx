import type { KeyboardEvent } from 'react';

/** A comment form's keys: Ctrl+Enter (Cmd+Enter) keeps it, Escape drops it without closing what holds it. */
export function commentKeys(save: () => void, cancel: () => void) {
  return (e: KeyboardEvent) => {
    if (e.key === 'Enter' && (e.ctrlKey || e.metaKey)) {
      e.preventDefault();
      save();
    } else if (e.key === 'Escape') {
      e.stopPropagation();
      cancel();
    }
  };
}

/** The buttons under a comment being written: the same two wherever a comment is written. */
export function CommentButtons(p: { ok: boolean; onSave: () => void; onCancel: () => void }) {
  return (
    <div className="buttons">
      <button type="button" className="primary" disabled={!p.ok} onClick={p.onSave}>
        Add comment
      </button>
      <button type="button" onClick={p.onCancel}>
        Cancel
      </button>
    </div>
  );
}
