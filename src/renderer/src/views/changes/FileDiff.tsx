import { lazy, Suspense, useEffect, useRef, useState } from 'react';
import type { ChangedFileRow, ReviewComment } from '../../../../shared/contract/changes';
import { LineCommentForm } from './LineCommentForm';
import { firstAddedLine } from './patch';

// The diff itself (@git-diff-view with every highlighting grammar, most of the renderer's bytes)
// loads when a diff is first drawn, not before the window's first paint.
const DiffBody = lazy(() => import('./DiffBody').then((m) => ({ default: m.DiffBody })));

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
        <Suspense fallback={<div className="diff-placeholder" style={{ height: estimate }} />}>
          <DiffBody
            file={f}
            patch={p.patch}
            split={p.split}
            extend={extend}
            onComment={p.onComment}
            onDrop={p.onDrop}
          />
        </Suspense>
      )}
    </section>
  );
}
