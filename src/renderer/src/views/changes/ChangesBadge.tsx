import type { PsRow } from '../../../../shared/contract';
import { useWindow } from '../../state/store';
import { openChanges } from './open';

/**
 * A rail row's changes, from the seats push: the number of files the seat changed (its text, for
 * checks from outside), marked as a risk when it overlaps another seat or shares its working tree;
 * a click opens its Changes view.
 */
export function ChangesBadge({ seat }: { seat: string }) {
  const c = useWindow((s) => s.seats[seat]?.changes);
  if (!c) return null;
  const overlaps = c.overlapsWith ?? [];
  const shared = c.sharedWith ?? [];
  if (c.files === 0 && overlaps.length === 0 && shared.length === 0) return null;
  const why = changesWords(c);
  return (
    <button
      type="button"
      className={`changes-badge${overlaps.length || shared.length ? ' risk' : ''}`}
      data-changes={seat}
      data-overlaps={overlaps.join(' ') || undefined}
      data-shared={shared.join(' ') || undefined}
      title={`${why} (c: open the Changes view)`}
      aria-label={`Changes of ${seat}: ${why}`}
      tabIndex={-1}
      onClick={(e) => {
        e.stopPropagation();
        openChanges(seat);
      }}
    >
      {c.files}
    </button>
  );
}

/** The badge's figures and risks in words (its title and accessible name). */
export function changesWords(c: NonNullable<PsRow['changes']>): string {
  return [
    `${c.files} file${c.files === 1 ? '' : 's'} changed, +${c.added} −${c.removed}`,
    ...(c.overlapsWith?.length ? [`overlaps ${c.overlapsWith.join(', ')}`] : []),
    ...(c.sharedWith?.length ? [`shares its working tree with ${c.sharedWith.join(', ')}`] : []),
  ].join('; ');
}

/**
 * The rail row's risk line, in words as well as colour: the seats whose changes overlap this
 * one's (a merge conflict in the making), or that share its working tree (changes that cannot be
 * told apart).
 */
export function ChangesRisk({ seat }: { seat: string }) {
  const c = useWindow((s) => s.seats[seat]?.changes);
  const overlaps = c?.overlapsWith ?? [];
  const shared = c?.sharedWith ?? [];
  if (!overlaps.length && !shared.length) return null;
  return (
    <span className="changes-risk" data-changes-risk={overlaps.length ? 'overlaps' : 'shared'}>
      {overlaps.length
        ? `overlaps ${overlaps.map(memberOf).join(', ')}`
        : `shares tree with ${shared.map(memberOf).join(', ')}`}
    </span>
  );
}

function memberOf(seat: string): string {
  const at = seat.lastIndexOf('@');
  return at > 0 ? seat.slice(0, at) : seat;
}

/** The rail row's worktree: its branch, with the folder in the title. */
export function WorktreeMark({ seat }: { seat: string }) {
  const w = useWindow((s) => s.seats[seat]?.worktree);
  if (!w) return null;
  return (
    <span className="branch" data-branch={w.branch} title={`worktree ${w.path} on ${w.branch}, from ${w.base}`}>
      ⎇ {w.branch}
    </span>
  );
}
