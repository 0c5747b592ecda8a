import type { SearchAddon } from '@xterm/addon-search';
import type { Terminal } from '@xterm/xterm';
import '@xterm/xterm/css/xterm.css';
import { useEffect, useRef, useState } from 'react';
import type { Transport } from '../transport';
import { FindBar } from './FindBar';
import type { FrameRouter } from './frames';
import { mountTerminal } from './mount';

export interface SeatTerminalProps {
  seat: string;
  transport: Transport;
  frames: FrameRouter;
  /** This pane has the grid's focus: it takes the keyboard when `focusTick` moves. */
  focused: boolean;
  focusTick: number;
  /** The terminal took the keyboard (a click, Tab): its slot becomes the focused one. */
  onFocus: () => void;
  find: boolean;
  onCloseFind: () => void;
}

/** One live pane: attached through the host's pty bridge while it is on screen, parked when it leaves. */
export function SeatTerminal(p: SeatTerminalProps) {
  const box = useRef<HTMLDivElement>(null);
  const termRef = useRef<Terminal | undefined>(undefined);
  const searchRef = useRef<SearchAddon | undefined>(undefined);
  const onFocus = useRef(p.onFocus);
  onFocus.current = p.onFocus;
  const [status, setStatus] = useState('connecting');
  const { seat, transport, frames } = p;

  useEffect(() => {
    const m = mountTerminal(box.current!, { seat, transport, frames, setStatus, onFocus: () => onFocus.current() });
    termRef.current = m.term;
    searchRef.current = m.search;
    return () => {
      termRef.current = undefined;
      searchRef.current = undefined;
      m.dispose();
    };
  }, [seat, transport, frames]);

  // The keyboard follows the grid's focus when asked (a slot key, the palette, a deep link).
  // biome-ignore lint/correctness/useExhaustiveDependencies: a new focusTick asks for the focus again
  useEffect(() => {
    if (p.focused && !p.find) termRef.current?.focus();
  }, [p.focused, p.focusTick, p.find]);

  return (
    <div
      className="terminal-wrap"
      data-terminal-state={
        status === 'live'
          ? 'live'
          : status.startsWith('ended')
            ? 'ended'
            : status === 'connecting'
              ? 'connecting'
              : 'refused'
      }
    >
      {p.find && p.focused && (
        <FindBar
          search={searchRef.current}
          onClose={() => {
            searchRef.current?.clearDecorations();
            p.onCloseFind();
            termRef.current?.focus();
          }}
        />
      )}
      {status !== 'live' && (
        <div className="terminal-status" data-testid="terminal-status">
          {status}
        </div>
      )}
      <div className="terminal" ref={box} data-testid="terminal" />
    </div>
  );
}
