import { CHORDS, PLAIN_KEYS } from '../state/keys';
import { useWindow } from '../state/store';

/** `?`: every binding. In a focused terminal only the chords are the window's; other keys go to the pane. */
export function Help() {
  const open = useWindow((s) => s.help);
  if (!open) return null;
  const close = () => useWindow.setState((s) => ({ help: false, focusTick: s.focusTick + 1 }));
  return (
    // biome-ignore lint/a11y/noStaticElementInteractions: a click on the backdrop closes it; Escape is the keyboard path
    <div className="overlay" onMouseDown={(e) => e.target === e.currentTarget && close()}>
      <div className="dialog help" role="dialog" aria-label="Keys" aria-modal="true">
        <h2>Keys</h2>
        <p className="muted">In a focused terminal every key goes to the pane except these chords:</p>
        <table>
          <tbody>
            {CHORDS.map((c) => (
              <tr key={c.id}>
                <td>
                  <kbd>{c.keys}</kbd>
                </td>
                <td>{c.what}</td>
              </tr>
            ))}
          </tbody>
        </table>
        <p className="muted">Elsewhere in the window:</p>
        <table>
          <tbody>
            {PLAIN_KEYS.map((k) => (
              <tr key={k.keys}>
                <td>
                  <kbd>{k.keys}</kbd>
                </td>
                <td>{k.what}</td>
              </tr>
            ))}
          </tbody>
        </table>
        <div className="buttons">
          <button type="button" autoFocus onClick={close}>
            Close
          </button>
        </div>
      </div>
    </div>
  );
}
