import { DiffModeEnum, DiffView, SplitSide } from '@git-diff-view/react';
import { useState } from 'react';
import type { ChangedFileRow, ReviewComment } from '../../../../shared/contract/changes';
import { langOf } from './patch';
import { CommentButtons, commentKeys } from './CommentButtons';

type Side = 'old' | 'new';
const sideOf = (s: SplitSide): Side => (s === SplitSide.old ? 'old' : 'new');

/** A file's diff drawn, with its comments on their lines and a box to write one (FileDiff loads it lazily). */
export function DiffBody(p: {
  file: ChangedFileRow;
  patch: string;
  split: boolean;
  extend: Record<'oldFile' | 'newFile', Record<string, { data: ReviewComment[] }>>;
  onComment: (c: ReviewComment) => void;
  onDrop: (c: ReviewComment) => void;
}) {
  const f = p.file;
  const extend = p.extend;
  return (
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
  );
}

/** The box a comment is written in: Ctrl+Enter keeps it, Escape drops it. */
function CommentBox(p: { where: string; onSave: (text: string) => void; onCancel: () => void }) {
  const [text, setText] = useState('');
  const save = () => text.trim() && p.onSave(text.trim());
  return (
    <div className="comment-box">
      <textarea
        aria-label={`comment on ${p.where}`}
        placeholder={`Comment on ${p.where} (Ctrl+Enter to add)`}
        value={text}
        autoFocus
        rows={3}
        onChange={(e) => setText(e.target.value)}
        onKeyDown={commentKeys(save, p.onCancel)}
      />
      <CommentButtons ok={!!text.trim()} onSave={save} onCancel={p.onCancel} />
    </div>
  );
}
