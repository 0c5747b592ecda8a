import { useChanges } from '../../state/changes';
import { openChanges } from './open';

/**
 * A rail row's changes: the number of files the seat changed (its text, for checks from outside),
 * marked when it overlaps another seat or shares its working tree; a click opens its Changes view.
 */
export function ChangesBadge({ seat }: { seat: string }) {
  const c = useChanges((s) => s.bySeat[seat]);
  if (!c || (c.files.length === 0 && c.overlaps.length === 0)) return null;
  const added = c.files.reduce((n, f) => n + f.added, 0);
  const removed = c.files.reduce((n, f) => n + f.removed, 0);
  const risk = c.overlaps.length > 0 || c.sharedWith.length > 0;
  const why = [
    `${c.files.length} file${c.files.length === 1 ? '' : 's'} changed, +${added} −${removed}`,
    ...c.overlaps.map((o) => `overlaps ${o.seat} on ${o.paths.join(', ')}`),
    ...(c.sharedWith.length ? [`shares its working tree with ${c.sharedWith.join(', ')}`] : []),
  ].join('; ');
  return (
    <button
      type="button"
      className={`changes-badge${risk ? ' risk' : ''}`}
      data-changes={seat}
      data-overlaps={c.overlaps.map((o) => o.seat).join(' ') || undefined}
      title={`${why} (open the Changes view)`}
      aria-label={`Changes of ${seat}: ${why}`}
      tabIndex={-1}
      onClick={(e) => {
        e.stopPropagation();
        openChanges(seat);
      }}
    >
      {c.files.length}
    </button>
  );
}
