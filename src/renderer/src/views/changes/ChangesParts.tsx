import type { ChangedFileRow, SeatChanges } from '../../../../shared/contract/changes';

/** Where the seat's work is: its branch against its base in its worktree, or the checkout it shares. */
export function WhereLine({ info }: { info: SeatChanges | undefined }) {
  if (!info) return <span className="where muted">reading…</span>;
  if (!info.branch) return <span className="where muted">{info.tree ? `the checkout at ${info.tree}` : ''}</span>;
  return (
    <span className="where">
      <code data-changes-branch>{info.branch}</code> against <code>{info.base ?? 'its base'}</code>
      {info.worktree && (
        <>
          {' '}
          in <code data-changes-worktree>{info.worktree}</code>
        </>
      )}
    </span>
  );
}

/** What puts the seat's work at risk, in words: a shared tree, overlaps, a problem reading it. */
export function RiskNotes({ info }: { info: SeatChanges | undefined }) {
  if (!info) return null;
  return (
    <>
      {info.sharedWith.length > 0 && (
        <p className="risk" role="note">
          Shares its working tree with {info.sharedWith.join(', ')}: their changes cannot be told apart.
        </p>
      )}
      {info.overlaps.map((o) => (
        <p key={o.seat} className="risk" role="note" data-overlap={o.seat}>
          Overlaps {o.seat} on {o.paths.join(', ')}.
        </p>
      ))}
      {info.problem && (
        <p className="risk" role="alert" data-changes-problem={info.problem.code}>
          {info.problem.code}: {info.problem.message}
          {info.problem.hint ? ` (${info.problem.hint})` : ''}
        </p>
      )}
    </>
  );
}

/** The merge gate's evidence under its refusal: the files at fault, or the tail of the checks. */
export function GateEvidence({ evidence }: { evidence: Record<string, unknown> | undefined }) {
  const files = Array.isArray(evidence?.files) ? evidence.files.filter((f) => typeof f === 'string') : [];
  const tail = typeof evidence?.tail === 'string' ? evidence.tail : '';
  if (!files.length && !tail) return null;
  return (
    <div className="gate-evidence">
      {files.length > 0 && (
        <ul data-refusal-files>
          {files.map((f) => (
            <li key={f}>
              <code>{f}</code>
            </li>
          ))}
        </ul>
      )}
      {tail && <pre data-refusal-tail>{tail}</pre>}
    </div>
  );
}

/** The seat's files with their status and counts; a click brings the file's diff to the top. */
export function FileList({ files, shown }: { files: ChangedFileRow[]; shown: boolean }) {
  const jumpTo = (path: string) =>
    document.querySelector<HTMLElement>(`[data-diff-file="${CSS.escape(path)}"]`)?.scrollIntoView({ block: 'start' });
  return (
    <nav className="file-list" aria-label="changed files">
      {files.length === 0 && shown && <p className="muted">No changes.</p>}
      {files.map((f) => (
        <button key={f.path} type="button" data-file-link={f.path} title={f.path} onClick={() => jumpTo(f.path)}>
          <span className={`status st-${f.status}`} title={f.status}>
            {f.status[0]!.toUpperCase()}
          </span>
          <span className="path">{f.path}</span>
          <span className="plus">+{f.added}</span>
          <span className="minus">−{f.removed}</span>
        </button>
      ))}
    </nav>
  );
}

/** Unified or side by side, as two pressed buttons (u and s from the keyboard). */
export function LayoutSwitch({ split, onSplit }: { split: boolean; onSplit: (split: boolean) => void }) {
  return (
    <fieldset className="segmented" aria-label="diff layout">
      <button type="button" aria-pressed={!split} title="Unified (u)" onClick={() => onSplit(false)}>
        Unified
      </button>
      <button type="button" aria-pressed={split} title="Side by side (s)" onClick={() => onSplit(true)}>
        Side by side
      </button>
    </fieldset>
  );
}
