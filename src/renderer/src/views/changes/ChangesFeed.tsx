import { useEffect } from 'react';
import { loadRig } from '../../state/changes';
import { useWindow } from '../../state/store';

/** How often the window reads the rigs' changes while it is shown (until ps carries the totals). */
const EVERY_MS = 2000;

/**
 * Keeps the rail's badges and the topology's overlaps current: each rig's changes read on a short
 * clock while the window is visible (the engine reads git only when its watcher saw a write, so a
 * read of unchanged figures is cheap for it).
 */
export function ChangesFeed() {
  const rigs = useWindow((s) => s.topology.rigs.map((r) => r.name).join('\n'));
  const visible = useWindow((s) => s.visible);
  useEffect(() => {
    if (!visible || !rigs) return;
    const load = () => {
      for (const r of rigs.split('\n')) void loadRig(r);
    };
    load();
    const t = setInterval(load, EVERY_MS);
    return () => clearInterval(t);
  }, [rigs, visible]);
  return null;
}
