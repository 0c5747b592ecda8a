import { DiffModeEnum, DiffView, SplitSide } from '@git-diff-view/react';
import { useEffect, useRef, useState } from 'react';
import type { ChangedFileRow, ReviewComment } from '../../../../shared/contract/changes';
import { LineCommentForm } from './LineCommentForm';
import { firstAddedLine, langOf } from './patch';

type Side = 'old' | 'new';
const sideOf = (s: SplitSide): Side => (s === SplitSide.old ? 'old' : 'new');

/** Lines of a diff that is drawn before it is on screen: a placeholder keeps its height. */
const LINE_PX = 20;

/**
 * One file of a Changes view: its header (status, counts) and its diff, drawn only once it comes
 * near the screen, so a seat with hundreds of files or a huge one scrolls smoothly (the browser
 * never lays out diffs nobody looks at). The "+" at a line's number opens a comment box there.
 */
export function FileDiff(p: {
  file: ChangedFileRow;
  /** Its part of the seat's diff: undefined while the diff is read, null when the diff has none. */
  patch: string | null | undefined;
  /** The diff was cut short: a file without a part is past the cut. */
  truncated?: boolean;
  split: boolean;
  comments: ReviewComment[];
  onComment: (c: ReviewComment) => void;
  onDrop: (c: ReviewComment) => void;
}) {
  const box = useRef<HTMLElement>(null);
  const [near, setNear] = useState(false);
  const [asking, setAsking] = useState(false);
  useEffect(() => {
    const el = box.current;
    if (!el || near) return;
    const io = new IntersectionObserver((es) => es.some((e) => e.isIntersecting) && setNear(true), {
      rootMargin: '600px 0px',
    });
    io.observe(el);
    return () => io.disconnect();
  }, [near]);
  const f = p.file;
  const estimate = Math.min(4000, (f.added + f.removed + 6) * LINE_PX);
  const extend = { oldFile: {}, newFile: {} } as Record<
    'oldFile' | 'newFile',
    Record<string, { data: ReviewComment[] }>
  >;
  for (const c of p.comments) {
    const k = c.side === 'old' ? 'oldFile' : 'newFile';
    extend[k][String(c.line)] = { data: [...(extend[k][String(c.line)]?.data ?? []), c] };
  }
  return (
    <section ref={box} className="file-diff" data-diff-file={f.path} aria-label={`diff of ${f.path}`}>
      <header className="file-head">
        <span className={`status st-${f.status}`}>{f.status}</span>
        <span className="path">{f.from ? `${f.from} → ${f.path}` : f.path}</span>
        <span className="counts">
          <span className="plus">+{f.added}</span> <span className="minus">−{f.removed}</span>
        </span>
        {!f.binary && (
          <button type="button" className="link" data-comment-on={f.path} onClick={() => setAsking(true)}>
            Comment…
          </button>
        )}
      </header>
      {asking && (
        <LineCommentForm
          path={f.path}
          first={firstAddedLine(p.patch)}
          onSave={(c) => {
            p.onComment(c);
            setAsking(false);
          }}
          onCancel={() => setAsking(false)}
        />
      )}
      {f.binary ? (
        <p className="muted pad">A binary file: no lines to show.</p>
      ) : p.patch === null ? (
        <p className="muted pad" data-no-diff>
          {p.truncated
            ? 'Past the end of the diff shown: too long a change to show whole.'
            : 'No lines to show against the base now (its change may be in the base already).'}
        </p>
      ) : !near || p.patch === undefined ? (
        <div className="diff-placeholder" style={{ height: estimate }} />
      ) : (
        <DiffView<ReviewComment[]>
          data={{
            oldFile: { fileName: f.from ?? f.path, fileLang: langOf(f.path) },
            newFile: { fileName: f.path, fileLang: langOf(f.path) },
            hunks: [p.patch],
          }}
          extendData={extend}
          diffViewMode={p.split ? DiffModeEnum.Split : DiffModeEnum.Unified}
          diffViewTheme={matchMedia('(prefers-color-scheme: dark)').matches ? 'dark' : 'light'}
          diffViewHighlight
          diffViewWrap={false}
          diffViewFontSize={12.5}
          diffViewAddWidget
          renderWidgetLine={({ lineNumber, side, onClose }) => (
            <CommentBox
              where={`${f.path}:${lineNumber}`}
              onSave={(text) => {
                p.onComment({ path: f.path, line: lineNumber, side: sideOf(side), text });
                onClose();
              }}
              onCancel={onClose}
            />
          )}
          renderExtendLine={({ data }) => (
            <ul className="line-comments">
              {data.map((c) => (
                <li key={`${c.side}:${c.line}:${c.text}`} data-review-comment={`${c.path}:${c.line}`}>
                  <span className="where">
                    {c.path}:{c.line}
                  </span>
                  <span className="text">{c.text}</span>
                  <button type="button" className="link" onClick={() => p.onDrop(c)}>
                    Remove
                  </button>
                </li>
              ))}
            </ul>
          )}
        />
      )}
    </section>
  );
}

/** The box a comment is written in: Ctrl+Enter keeps it, Escape drops it. */
function CommentBox(p: { where: string; onSave: (text: string) => void; onCancel: () => void }) {
  const [text, setText] = useState('');
  return (
    <div className="comment-box">
      <textarea
        aria-label={`comment on ${p.where}`}
        placeholder={`Comment on ${p.where} (Ctrl+Enter to add)`}
        value={text}
        autoFocus
        rows={3}
        onChange={(e) => setText(e.target.value)}
        onKeyDown={(e) => {
          if (e.key === 'Enter' && (e.ctrlKey || e.metaKey) && text.trim()) {
            e.preventDefault();
            p.onSave(text.trim());
          } else if (e.key === 'Escape') {
            e.stopPropagation();
            p.onCancel();
          }
        }}
      />
      <div className="buttons">
        <button type="button" className="primary" disabled={!text.trim()} onClick={() => p.onSave(text.trim())}>
          Add comment
        </button>
        <button type="button" onClick={p.onCancel}>
          Cancel
        </button>
      </div>
    </div>
  );
}
