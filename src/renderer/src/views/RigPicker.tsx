import { useWindow } from '../state/store';

/** The rig the timeline and the restore review show: the one picked, or the first rig recorded. */
export function useViewRig(): string | undefined {
  return useWindow((s) => {
    const names = s.topology.rigs.map((r) => r.name);
    return s.viewRig && names.includes(s.viewRig) ? s.viewRig : names[0];
  });
}

/** Which rig a view shows; a plain label when there is only one. */
export function RigPicker({ rig }: { rig: string }) {
  const names = useWindow((s) => s.topology.rigs.map((r) => r.name).join('\n'));
  const list = names ? names.split('\n') : [];
  if (list.length <= 1) return <span className="rig-name">rig {rig}</span>;
  return (
    <label className="rig-pick">
      <span>rig</span>
      <select aria-label="rig" value={rig} onChange={(e) => useWindow.setState({ viewRig: e.target.value })}>
        {list.map((r) => (
          <option key={r} value={r}>
            {r}
          </option>
        ))}
      </select>
    </label>
  );
}
