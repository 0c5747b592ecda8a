import { useEffect, useRef } from 'react';
import { dropRig, loadRig, overlapKeys } from '../../state/changes';
import { useWindow } from '../../state/store';

/**
 * Keeps the topology's overlaps current without a clock: the seats push carries each seat's
 * totals and the seats it overlaps (the engine's watch keeps them fresh), so a rig is read with
 * `changes.list` (for the paths) only when that push shows its overlaps changed, and forgotten
 * when they end.
 */
export function ChangesFeed() {
  const seen = useRef(new Map<string, string>());
  useEffect(() => {
    const follow = (seats: Parameters<typeof overlapKeys>[0]) => {
      const now = overlapKeys(seats);
      for (const [rig, key] of now) if (seen.current.get(rig) !== key) void loadRig(rig);
      for (const rig of seen.current.keys()) if (!now.has(rig)) dropRig(rig);
      seen.current = now;
    };
    follow(useWindow.getState().seats);
    return useWindow.subscribe((s, prev) => {
      if (s.seats !== prev.seats) follow(s.seats);
    });
  }, []);
  return null;
}
