import type { ReactNode } from 'react';
import { useWindow } from '../state/store';

export const closeDialog = () => useWindow.setState((s) => ({ dialog: undefined, focusTick: s.focusTick + 1 }));

/** The frame every dialog shares: a title, Escape or Cancel closes it and gives the focus back. */
export function DialogFrame({ title, children, wide }: { title: string; children: ReactNode; wide?: boolean }) {
  return (
    // biome-ignore lint/a11y/noStaticElementInteractions: a click on the backdrop closes it; Escape is the keyboard path
    <div className="overlay" onMouseDown={(e) => e.target === e.currentTarget && closeDialog()}>
      <div
        className={`dialog${wide ? ' wide' : ''}`}
        role="dialog"
        aria-modal="true"
        aria-label={title}
        onKeyDown={(e) => {
          if (e.key === 'Escape') {
            e.preventDefault();
            e.stopPropagation();
            closeDialog();
          }
        }}
      >
        <h2>{title}</h2>
        {children}
      </div>
    </div>
  );
}
