import { useState } from 'react';
import type { ReviewComment } from '../../../../shared/contract/changes';
import { CommentButtons, commentKeys } from './CommentButtons';

/**
 * The keyboard's way to a line comment (the `+` beside a line wants a pointer): the line's number
 * in the new file, first the first line the file adds, and the comment. Ctrl+Enter keeps it,
 * Escape drops it.
 */
export function LineCommentForm(p: {
  path: string;
  first: number;
  onSave: (c: ReviewComment) => void;
  onCancel: () => void;
}) {
  const [line, setLine] = useState(String(p.first));
  const [text, setText] = useState('');
  const n = Number(line);
  const ok = Number.isInteger(n) && n >= 1 && text.trim() !== '';
  const save = () => ok && p.onSave({ path: p.path, line: n, side: 'new', text: text.trim() });
  return (
    // biome-ignore lint/a11y/noStaticElementInteractions: Ctrl+Enter and Escape act on the form's fields; the buttons do the same
    <div className="comment-box line-form" onKeyDown={commentKeys(save, p.onCancel)}>
      <label>
        Line{' '}
        <input
          type="number"
          min={1}
          aria-label={`line of ${p.path}`}
          value={line}
          autoFocus
          onChange={(e) => setLine(e.target.value)}
        />
      </label>
      <textarea
        aria-label={`comment on ${p.path}`}
        placeholder={`Comment on ${p.path}:${line} (Ctrl+Enter to add)`}
        value={text}
        rows={3}
        onChange={(e) => setText(e.target.value)}
      />
      <CommentButtons ok={ok} onSave={save} onCancel={p.onCancel} />
    </div>
  );
}
