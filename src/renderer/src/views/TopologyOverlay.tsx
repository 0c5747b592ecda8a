import { useEffect, useRef, useState } from 'react';
import { call, openInGrid, pin } from '../state/actions';
import { useWindow } from '../state/store';
import { seatActions } from './seat-actions';

type Spot = { seat: string; x: number; y: number };

const PREVIEW_LINES = 8;
/** While the pointer rests on a seat its screen is read again this often: one capture, never a stream. */
const PREVIEW_EVERY_MS = 2000;

/** The last lines of a seat's screen, beside its node while the pointer is on it. */
export function ScreenPreview({ spot }: { spot: Spot }) {
  const running = useWindow((s) => s.seats[spot.seat]?.state === 'running');
  const [lines, setLines] = useState<string[] | undefined>();
  const [why, setWhy] = useState<string>();
  useEffect(() => {
    if (!running) return;
    let live = true;
    const read = () =>
      void call('capture', { seat: spot.seat, lines: 0 }, `capture ${spot.seat}`, { quiet: true }).then((r) => {
        if (!live || !r) return;
        if (r.ok) {
          const shown = r.text.split('\n').map((l) => l.trimEnd());
          while (shown.length && !shown.at(-1)) shown.pop();
          setLines(shown.slice(-PREVIEW_LINES));
        } else setWhy(r.message);
      });
    read();
    const t = setInterval(read, PREVIEW_EVERY_MS);
    return () => {
      live = false;
      clearInterval(t);
    };
  }, [spot.seat, running]);
  return (
    <div
      className="screen-preview"
      role="tooltip"
      data-preview={spot.seat}
      style={{ left: Math.max(4, spot.x), top: spot.y }}
    >
      <div className="preview-head">{spot.seat}</div>
      {!running ? (
        <p className="muted">Not running: no screen to show.</p>
      ) : why ? (
        <p className="muted">{why}</p>
      ) : lines === undefined ? (
        <p className="muted">reading the screen…</p>
      ) : (
        <pre>{lines.join('\n') || ' '}</pre>
      )}
    </div>
  );
}

/** The node's menu: the rail's and the pane's seat actions, and opening or pinning it in the grid. */
export function SeatMenu({ spot, onClose }: { spot: Spot; onClose: (refocus: boolean) => void }) {
  const row = useWindow((s) => s.seats[spot.seat]);
  const box = useRef<HTMLDivElement>(null);
  useEffect(() => box.current?.querySelector<HTMLElement>('[role="menuitem"]')?.focus(), []);
  useEffect(() => {
    const away = (e: MouseEvent) => {
      if (box.current && !box.current.contains(e.target as Node)) onClose(false);
    };
    window.addEventListener('mousedown', away, true);
    return () => window.removeEventListener('mousedown', away, true);
  }, [onClose]);
  const items = [
    { id: 'open', label: 'Open in the grid', run: () => openInGrid(spot.seat), danger: false },
    { id: 'pin', label: 'Pin in the grid', run: () => pin(spot.seat), danger: false },
    ...seatActions(spot.seat, row),
  ];
  const onKey = (e: React.KeyboardEvent) => {
    const list = [...(box.current?.querySelectorAll<HTMLElement>('[role="menuitem"]') ?? [])];
    const i = list.indexOf(document.activeElement as HTMLElement);
    if (e.key === 'Escape') onClose(true);
    else if (e.key === 'ArrowDown') list[(i + 1) % list.length]?.focus();
    else if (e.key === 'ArrowUp') list[(i + list.length - 1) % list.length]?.focus();
    else return;
    e.preventDefault();
    e.stopPropagation();
  };
  return (
    <div
      ref={box}
      className="menu node-actions"
      role="menu"
      aria-label={`Actions for ${spot.seat}`}
      data-node-menu={spot.seat}
      style={{ left: Math.max(4, spot.x), top: spot.y }}
      onKeyDown={onKey}
    >
      {items.map((a) => (
        <button
          key={a.id}
          type="button"
          role="menuitem"
          className={a.danger ? 'danger' : undefined}
          onClick={() => (onClose(false), a.run())}
        >
          {a.label}
        </button>
      ))}
    </div>
  );
}
