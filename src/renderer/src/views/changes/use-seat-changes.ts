import { useEffect, useState } from 'react';
import type { SeatChanges } from '../../../../shared/contract/changes';
import type { Failure } from '../../../../shared/errors';
import { changesCall } from '../../state/changes';
import { useWindow } from '../../state/store';
import { splitPatch } from './patch';

export interface Fault {
  what: string;
  failure: Failure;
}

const NOT_CONNECTED: Failure = { ok: false, code: 'ENGINE_UNREACHABLE', message: 'not connected to the engine' };

/**
 * A seat's changes and each file's patch, read when its Changes view opens, again when the seats
 * push shows its totals moved (the engine's watch saw a write), and when `again` changes (a merge).
 */
export function useSeatChanges(seat: string, again: number, onFault: (f: Fault) => void) {
  const [info, setInfo] = useState<SeatChanges>();
  const [patches, setPatches] = useState<Map<string, string>>();
  const [truncated, setTruncated] = useState(false);
  const figures = useWindow((s) => {
    const c = s.seats[seat]?.changes;
    return c ? `${c.files}/${c.added}/${c.removed}` : '';
  });
  // biome-ignore lint/correctness/useExhaustiveDependencies: read again after a merge (again) or a write (figures)
  useEffect(() => {
    let live = true;
    const call = changesCall();
    if (!call) return onFault({ what: `changes ${seat}`, failure: NOT_CONNECTED });
    void Promise.all([call('changes.list', { seat }), call('changes.diff', { seat })]).then(([list, diff]) => {
      if (!live) return;
      if (!list.ok) return onFault({ what: `changes ${seat}`, failure: list });
      setInfo(list.seats[0]);
      if (!diff.ok) return onFault({ what: `diff ${seat}`, failure: diff });
      setPatches(new Map(splitPatch(diff.patch).map((f) => [f.path, f.text])));
      setTruncated(diff.truncated);
    });
    return () => {
      live = false;
    };
  }, [seat, again, figures]);
  return { info, patches, truncated };
}
