import '@git-diff-view/react/styles/diff-view-pure.css';
import { useEffect, useMemo, useRef, useState } from 'react';
import type { ReviewComment } from '../../../../shared/contract/changes';
import { changesCall } from '../../state/changes';
import { noteDone } from '../../state/store';
import { closeDialog, DialogFrame } from '../DialogFrame';
import { Refusal } from '../Notes';
import { FileList, GateEvidence, LayoutSwitch, RiskNotes, WhereLine } from './ChangesParts';
import { FileDiff } from './FileDiff';
import { type Fault, useSeatChanges } from './use-seat-changes';

/**
 * A seat's Changes: where its work is, its files with their counts, each diff (unified or side by
 * side), comments on lines sent back to the seat as one review (through safe send: held while it
 * works), and the merge gate. Keys: u / s switch the layout, j / k move between files, Escape
 * closes, Ctrl+Enter in the note sends the review.
 */
export function ChangesView({ seat }: { seat: string }) {
  const [fault, setFault] = useState<Fault>();
  const [split, setSplit] = useState(false);
  const [comments, setComments] = useState<ReviewComment[]>([]);
  const [again, setAgain] = useState(0);
  const [outcome, setOutcome] = useState<string>();
  const root = useRef<HTMLDivElement>(null);
  const { info, patches, truncated } = useSeatChanges(seat, again, setFault);
  const gate = useGate(seat, setFault, (text) => {
    setOutcome(text);
    setAgain((n) => n + 1);
  });
  useEffect(() => root.current?.focus(), []);
  const files = info?.files ?? [];
  const totals = useMemo(
    () =>
      files.reduce((a, f) => ({ added: a.added + f.added, removed: a.removed + f.removed }), { added: 0, removed: 0 }),
    [files],
  );

  return (
    <DialogFrame title={`Changes of ${seat}`} wide>
      {/* biome-ignore lint/a11y/noStaticElementInteractions: the view's keys (u, s, j, k) act on the whole view; each has a button too */}
      <div
        ref={root}
        tabIndex={-1}
        className="changes"
        data-changes-view={seat}
        onKeyDown={(e) => {
          if (e.target instanceof HTMLTextAreaElement || e.target instanceof HTMLInputElement) return;
          if (e.key === 'u') setSplit(false);
          else if (e.key === 's') setSplit(true);
          else if (e.key === 'j' || e.key === 'k') moveFile(e.currentTarget, e.key === 'j' ? 1 : -1);
        }}
      >
        <div className="changes-bar">
          <WhereLine info={info} />
          <span className="totals" data-changes-totals={seat}>
            {files.length} file{files.length === 1 ? '' : 's'} · <span className="plus">+{totals.added}</span>{' '}
            <span className="minus">−{totals.removed}</span>
          </span>
          <span className="spacer" />
          <LayoutSwitch split={split} onSplit={setSplit} />
          <button
            type="button"
            className="primary"
            data-merge={seat}
            disabled={gate.busy !== undefined || !info?.branch}
            title={
              info?.branch
                ? `Merge ${info.branch} into ${info.base ?? 'its base'} through the gate`
                : 'No worktree branch to merge'
            }
            onClick={() => void gate.merge()}
          >
            {gate.busy === 'merge' ? 'Merging…' : 'Merge'}
          </button>
        </div>
        <RiskNotes info={info} />
        {fault && (
          <Refusal what={fault.what} failure={fault.failure} onClose={() => setFault(undefined)}>
            <GateEvidence evidence={fault.failure.evidence} />
          </Refusal>
        )}
        {outcome && (
          <p className="outcome" role="status" data-changes-outcome>
            {outcome}
          </p>
        )}
        <div className="changes-body">
          <FileList files={files} shown={info !== undefined} />
          <div className="diffs">
            {truncated && <p className="muted">The diff is too long to show whole: its first part is shown.</p>}
            {files.map((f) => (
              <FileDiff
                key={f.path}
                file={f}
                patch={patches ? (patches.get(f.path) ?? null) : undefined}
                truncated={truncated}
                split={split}
                comments={comments.filter((c) => c.path === f.path)}
                onComment={(c) => setComments((cs) => [...cs, c])}
                onDrop={(c) => setComments((cs) => cs.filter((x) => x !== c))}
              />
            ))}
          </div>
        </div>
        <ReviewBar
          count={comments.length}
          busy={gate.busy === 'review'}
          onSend={async (note) => (await gate.review(comments, note)) && setComments([])}
        />
      </div>
    </DialogFrame>
  );
}

/** The review and the merge: each through its request, a refusal shown in the view, a success said. */
function useGate(seat: string, onFault: (f: Fault | undefined) => void, onDone: (text: string) => void) {
  const [busy, setBusy] = useState<'review' | 'merge'>();
  const review = async (comments: ReviewComment[], note: string): Promise<boolean> => {
    const call = changesCall();
    if (!call || comments.length === 0) return false;
    setBusy('review');
    const r = await call('review.send', { seat, comments, ...(note.trim() ? { note: note.trim() } : {}) });
    setBusy(undefined);
    if (!r.ok) return (onFault({ what: `review to ${seat}`, failure: r }), false);
    onFault(undefined);
    onDone(
      `Review sent to ${seat}: ${r.sent.chars} characters delivered${r.sent.verified ? ' and seen submitted' : ''}.`,
    );
    noteDone(`${seat}: review delivered`);
    return true;
  };
  const merge = async () => {
    const call = changesCall();
    if (!call) return;
    setBusy('merge');
    const r = await call('merge.run', { seat });
    setBusy(undefined);
    if (!r.ok) return onFault({ what: `merge ${seat}`, failure: r });
    onFault(undefined);
    onDone(
      r.upToDate
        ? `${r.into} already holds ${r.branch}: nothing to merge.`
        : `Merged ${r.branch} into ${r.into} (${r.commit.slice(0, 10)})${r.checks ? ', checks passed' : ''}.`,
    );
    noteDone(`${seat}: merged into ${r.into}`);
  };
  return { busy, review, merge };
}

/** The review's count of comments, its optional note, and the send. */
function ReviewBar(p: { count: number; busy: boolean; onSend: (note: string) => Promise<unknown> }) {
  const [note, setNote] = useState('');
  const send = async () => {
    if (p.count === 0 || p.busy) return;
    await p.onSend(note);
    setNote('');
  };
  return (
    <div className="review-bar">
      <span className="count" data-review-count={p.count}>
        {p.count} comment{p.count === 1 ? '' : 's'}
      </span>
      <input
        aria-label="review note"
        placeholder="A note above the comments (optional)"
        value={note}
        onChange={(e) => setNote(e.target.value)}
        onKeyDown={(e) => e.key === 'Enter' && (e.ctrlKey || e.metaKey) && void send()}
      />
      <button
        type="button"
        className="primary"
        disabled={p.busy || p.count === 0}
        title="One message citing each file:line and comment, delivered when the seat is idle"
        onClick={() => void send()}
      >
        {p.busy ? 'Sending…' : 'Send review'}
      </button>
      <button type="button" onClick={closeDialog}>
        Close
      </button>
    </div>
  );
}

/** j / k: the next or previous file's diff to the top, its link focused for the keys that follow. */
function moveFile(root: HTMLElement, by: 1 | -1): void {
  const list = [...root.querySelectorAll<HTMLElement>('[data-file-link]')];
  const i = list.indexOf(document.activeElement as HTMLElement);
  const next = list[Math.max(0, Math.min(list.length - 1, i < 0 ? 0 : i + by))];
  next?.focus();
  next?.click();
}
