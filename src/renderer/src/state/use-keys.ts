import { useEffect } from 'react';
import { GRIDS } from '../../../shared/contract';
import {
  answerFocused,
  focusSlotN,
  jump,
  layout,
  magnify,
  nextView,
  pinFocused,
  showPanel,
  toggleRail,
} from './actions';
import { type ChordHit, chordOf } from './keys';
import { useWindow } from './store';

function run(hit: ChordHit): void {
  switch (hit.id) {
    case 'palette':
      useWindow.setState((s) => ({ palette: !s.palette, help: false }));
      break;
    case 'jump':
      jump();
      break;
    case 'slot':
      focusSlotN(hit.n);
      break;
    case 'layout':
      layout(GRIDS[hit.n - 1]!);
      break;
    case 'approve':
      void answerFocused('approve');
      break;
    case 'deny':
      void answerFocused('deny');
      break;
    case 'find':
      useWindow.setState((s) => ({ find: !s.find }));
      break;
    case 'magnify':
      magnify();
      break;
    case 'pin':
      pinFocused();
      break;
    case 'decisions':
      showPanel('decisions');
      break;
    case 'details':
      showPanel('details');
      break;
    case 'rail':
      toggleRail();
      break;
    case 'view':
      nextView();
      break;
  }
}

const inTerminal = (t: EventTarget | null) => t instanceof HTMLElement && t.closest('.xterm') !== null;
const inField = (t: EventTarget | null) =>
  t instanceof HTMLElement && (t.isContentEditable || ['INPUT', 'TEXTAREA', 'SELECT'].includes(t.tagName));

/**
 * The window's keyboard, taken before the focused element sees the key (capture phase), so a
 * chord works from a terminal too; any other key in a terminal goes to the pane untouched.
 */
export function useKeys(): void {
  useEffect(() => {
    const onKey = (e: KeyboardEvent) => {
      const hit = chordOf(e);
      if (hit) {
        e.preventDefault();
        e.stopPropagation();
        run(hit);
        return;
      }
      if (inTerminal(e.target) || inField(e.target)) return;
      const s = useWindow.getState();
      if (e.key === 'Escape') {
        if (s.palette || s.help || s.dialog || s.find)
          useWindow.setState({ palette: false, help: false, dialog: undefined, find: false });
        // A refusal stays until it is read; Escape is its keyboard path away (with nothing else open).
        else if (s.notes.length) useWindow.setState({ notes: [] });
        useWindow.setState((x) => ({ focusTick: x.focusTick + 1 }));
        e.preventDefault();
      } else if (e.key === '?' && !s.dialog && !s.palette) {
        useWindow.setState({ help: true });
        e.preventDefault();
      }
    };
    window.addEventListener('keydown', onKey, true);
    return () => window.removeEventListener('keydown', onKey, true);
  }, []);
}
