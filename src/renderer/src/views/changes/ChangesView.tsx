import '@git-diff-view/react/styles/diff-view-pure.css';
import { useEffect, useMemo, useState } from 'react';
import type { ReviewComment, SeatChanges } from '../../../../shared/contract/changes';
import type { Failure } from '../../../../shared/errors';
import { changesCall, useChanges } from '../../state/changes';
import { noteDone } from '../../state/store';
import { closeDialog, DialogFrame } from '../DialogFrame';
import { Refusal } from '../Notes';
import { FileDiff } from './FileDiff';
import { splitPatch } from './patch';

const NOT_CONNECTED: Failure = { ok: false, code: 'ENGINE_UNREACHABLE', message: 'not connected to the engine' };

/**
 * A seat's Changes: its files with their counts, each diff (unified or side by side), comments on
 * lines sent back to the seat as one review (through safe send: held while it works), and the
 * merge gate. Keys: u / s switch the layout, j / k move between files, Ctrl+Enter sends the review.
 */
export function ChangesView({ seat }: { seat: string }) {
  const [info, setInfo] = useState<SeatChanges>();
  const [patches, setPatches] = useState<Map<string, string>>();
  const [failure, setFailure] = useState<{ what: string; failure: Failure }>();
  const [split, setSplit] = useState(false);
  const [comments, setComments] = useState<ReviewComment[]>([]);
  const [note, setNote] = useState('');
  const [busy, setBusy] = useState<'review' | 'merge'>();
  const [outcome, setOutcome] = useState<string>();
  const [tick, setTick] = useState(0);

  // biome-ignore lint/correctness/useExhaustiveDependencies: read again after a merge (tick)
  useEffect(() => {
    let live = true;
    const call = changesCall();
    if (!call) return setFailure({ what: `changes ${seat}`, failure: NOT_CONNECTED });
    void Promise.all([call('changes.list', { seat }), call('changes.diff', { seat })]).then(([list, diff]) => {
      if (!live) return;
      if (!list.ok) return setFailure({ what: `changes ${seat}`, failure: list });
      const mine = list.seats[0];
      setInfo(mine);
      if (mine) useChanges.setState((s) => ({ bySeat: { ...s.bySeat, [seat]: mine } }));
      if (!diff.ok) return setFailure({ what: `diff ${seat}`, failure: diff });
      setPatches(new Map(splitPatch(diff.patch).map((f) => [f.path, f.text])));
    });
    return () => {
      live = false;
    };
  }, [seat, tick]);

  const sendReview = async () => {
    const call = changesCall();
    if (!call || comments.length === 0) return;
    setBusy('review');
    const r = await call('review.send', { seat, comments, ...(note.trim() ? { note: note.trim() } : {}) });
    setBusy(undefined);
    if (!r.ok) return setFailure({ what: `review to ${seat}`, failure: r });
    setFailure(undefined);
    setComments([]);
    setNote('');
    const text = `Review sent to ${seat}: ${r.sent.sent.chars} characters delivered${r.sent.sent.verified ? ' and seen submitted' : ''}.`;
    setOutcome(text);
    noteDone(`${seat}: review delivered`);
  };

  const merge = async () => {
    const call = changesCall();
    if (!call) return;
    setBusy('merge');
    const r = await call('merge.run', { seat });
    setBusy(undefined);
    if (!r.ok) return setFailure({ what: `merge ${seat}`, failure: r });
    setFailure(undefined);
    setOutcome(
      r.upToDate
        ? `${r.into} already holds ${r.branch}: nothing to merge.`
        : `Merged ${r.branch} into ${r.into} (${r.commit.slice(0, 10)})${r.checks ? ', checks passed' : ''}.`,
    );
    noteDone(`${seat}: merged into ${r.into}`);
    setTick((t) => t + 1);
  };

  const files = info?.files ?? [];
  const totals = useMemo(
    () =>
      files.reduce((a, f) => ({ added: a.added + f.added, removed: a.removed + f.removed }), { added: 0, removed: 0 }),
    [files],
  );
  const jumpTo = (path: string) =>
    document.querySelector<HTMLElement>(`[data-diff-file="${CSS.escape(path)}"]`)?.scrollIntoView({ block: 'start' });

  return (
    <DialogFrame title={`Changes of ${seat}`} wide>
      {/* biome-ignore lint/a11y/noStaticElementInteractions: the view's keys (u, s, j, k) act on the whole view; each has a button too */}
      <div
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
          <span className="where">
            {info?.branch ? (
              <>
                <code>{info.branch}</code> against <code>{info.base ?? 'its base'}</code>
              </>
            ) : (
              <span className="muted">{info?.tree ? `the checkout at ${info.tree}` : 'reading…'}</span>
            )}
          </span>
          <span className="totals" data-changes-totals={seat}>
            {files.length} file{files.length === 1 ? '' : 's'} · <span className="plus">+{totals.added}</span>{' '}
            <span className="minus">−{totals.removed}</span>
          </span>
          <span className="spacer" />
          <div className="segmented" role="group" aria-label="diff layout">
            <button type="button" aria-pressed={!split} title="Unified (u)" onClick={() => setSplit(false)}>
              Unified
            </button>
            <button type="button" aria-pressed={split} title="Side by side (s)" onClick={() => setSplit(true)}>
              Side by side
            </button>
          </div>
          <button
            type="button"
            className="primary"
            disabled={busy !== undefined || !info?.branch}
            title={
              info?.branch
                ? `Merge ${info.branch} into ${info.base ?? 'its base'} through the gate`
                : 'No worktree branch to merge'
            }
            onClick={() => void merge()}
          >
            {busy === 'merge' ? 'Merging…' : 'Merge'}
          </button>
        </div>
        {info?.sharedWith.length ? (
          <p className="risk" role="note">
            Shares its working tree with {info.sharedWith.join(', ')}: their changes cannot be told apart.
          </p>
        ) : null}
        {info?.overlaps.map((o) => (
          <p key={o.seat} className="risk" role="note" data-overlap={o.seat}>
            Overlaps {o.seat} on {o.paths.join(', ')}.
          </p>
        ))}
        {info?.problem && (
          <p className="risk" role="alert" data-changes-problem={info.problem.code}>
            {info.problem.code}: {info.problem.message}
            {info.problem.hint ? ` (${info.problem.hint})` : ''}
          </p>
        )}
        {failure && <Refusal what={failure.what} failure={failure.failure} onClose={() => setFailure(undefined)} />}
        {outcome && (
          <p className="outcome" role="status" data-changes-outcome>
            {outcome}
          </p>
        )}
        <div className="changes-body">
          <nav className="file-list" aria-label="changed files">
            {files.length === 0 && info && <p className="muted">No changes.</p>}
            {files.map((f) => (
              <button key={f.path} type="button" data-file-link={f.path} onClick={() => jumpTo(f.path)}>
                <span className={`status st-${f.status}`} title={f.status}>
                  {f.status[0]!.toUpperCase()}
                </span>
                <span className="path" title={f.path}>
                  {f.path}
                </span>
                <span className="plus">+{f.added}</span>
                <span className="minus">−{f.removed}</span>
              </button>
            ))}
          </nav>
          <div className="diffs">
            {files.map((f) => (
              <FileDiff
                key={f.path}
                file={f}
                patch={patches?.get(f.path)}
                split={split}
                comments={comments.filter((c) => c.path === f.path)}
                onComment={(c) => setComments((cs) => [...cs, c])}
                onDrop={(c) => setComments((cs) => cs.filter((x) => x !== c))}
              />
            ))}
          </div>
        </div>
        <div className="review-bar">
          <span className="count" data-review-count={comments.length}>
            {comments.length} comment{comments.length === 1 ? '' : 's'}
          </span>
          <input
            aria-label="review note"
            placeholder="A note above the comments (optional)"
            value={note}
            onChange={(e) => setNote(e.target.value)}
            onKeyDown={(e) => e.key === 'Enter' && (e.ctrlKey || e.metaKey) && void sendReview()}
          />
          <button
            type="button"
            className="primary"
            disabled={busy !== undefined || comments.length === 0}
            title="One message citing each file:line and comment, delivered when the seat is idle"
            onClick={() => void sendReview()}
          >
            {busy === 'review' ? 'Sending…' : 'Send review'}
          </button>
          <button type="button" onClick={closeDialog}>
            Close
          </button>
        </div>
      </div>
    </DialogFrame>
  );
}

/** j / k: the next or previous file's diff to the top, its header focused for the keys that follow. */
function moveFile(root: HTMLElement, by: 1 | -1): void {
  const list = [...root.querySelectorAll<HTMLElement>('[data-file-link]')];
  const i = list.indexOf(document.activeElement as HTMLElement);
  const next = list[Math.max(0, Math.min(list.length - 1, i < 0 ? 0 : i + by))];
  next?.focus();
  next?.click();
}
