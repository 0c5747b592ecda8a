import { SearchAddon } from '@xterm/addon-search';
import { Terminal } from '@xterm/xterm';
import '@xterm/xterm/css/xterm.css';
import { useEffect, useRef, useState } from 'react';
import { encodeAck, encodeFrame, FRAME } from '../../../shared/contract/app';
import { chordOf } from '../state/keys';
import type { Transport } from '../transport';
import { FindBar } from './FindBar';
import { loadFit, loadRenderer, loadSerialize, screenText } from './addons';
import type { FrameRouter } from './frames';
import { WritePacer } from './pacer';
import { park, unpark } from './parking';
import { onThemeChange, terminalTheme } from './theme';

/** A resize is sent once the container has stopped changing for this long, not per pixel. */
const RESIZE_SETTLE_MS = 120;
/** `?renderer=webgl|dom` picks the renderer (benches compare them); otherwise loadRenderer decides. */
const PREFER = new URLSearchParams(location.search).get('renderer');

declare global {
  interface Window {
    /**
     * Read-only: each open terminal's visible text and renderer, for tests and diagnostics;
     * `onParsed` calls back each time xterm has parsed a write (a bench waits on it instead of
     * polling every frame, which would itself cost the page a frame a vsync).
     */
    __rigdeskScreens?: Record<
      string,
      { text: () => string; renderer: string; term: number | undefined; onParsed: (fn: () => void) => () => void }
    >;
  }
}

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
    const el = box.current!;
    const term = new Terminal({
      fontSize: 13,
      fontFamily: 'ui-monospace, "SF Mono", Menlo, Consolas, "DejaVu Sans Mono", monospace',
      cursorBlink: false,
      scrollback: 5000,
      theme: terminalTheme(),
      allowProposedApi: true,
    });
    termRef.current = term;
    // The app's chords go to the window, every other key to the pane.
    term.attachCustomKeyEventHandler((e) => chordOf(e) === undefined);
    const fit = loadFit(term);
    const serialize = loadSerialize(term);
    const search = new SearchAddon();
    term.loadAddon(search);
    searchRef.current = search;
    term.open(el);
    const renderer = loadRenderer(term, PREFER === 'webgl' || PREFER === 'dom' ? PREFER : undefined);
    const snapshot = unpark(seat);
    if (snapshot) term.write(snapshot);
    try {
      fit.fit();
    } catch {
      /* not laid out yet; the first settle fits */
    }
    let termId: number | undefined;
    let disposed = false;
    let release = () => undefined as void;
    const enc = new TextEncoder();
    window.__rigdeskScreens ??= {};
    window.__rigdeskScreens[seat] = {
      text: () => screenText(term),
      renderer,
      get term() {
        return termId;
      },
      onParsed: (fn) => {
        const d = term.onWriteParsed(fn);
        return () => d.dispose();
      },
    };

    void transport
      .request('terminal.open', { seat, cols: Math.max(2, term.cols), rows: Math.max(1, term.rows) })
      .then((r) => {
        if (!r.ok) return setStatus(`${r.code}: ${r.message}`);
        if (disposed) return void transport.request('terminal.close', { term: r.term });
        termId = r.term;
        setStatus('live');
        // Ack from xterm's write callback: the host's flow control counts bytes the parser has done.
        const pacer = new WritePacer(
          (data, parsed) => term.write(data, parsed),
          (n) => transport.sendFrame(encodeAck(r.term, n)),
        );
        const unclaim = frames.claim(r.term, (payload) => pacer.push(payload));
        release = () => (unclaim(), pacer.dispose());
      });
    const send = (bytes: Uint8Array) => {
      if (termId !== undefined) transport.sendFrame(encodeFrame(FRAME.INPUT, termId, bytes));
    };
    const input = term.onData((d) => send(enc.encode(d)));
    const binary = term.onBinary((d) => send(Uint8Array.from(d, (c) => c.charCodeAt(0) & 0xff)));
    const focusin = () => onFocus.current();
    term.textarea?.addEventListener('focus', focusin);
    let settle: ReturnType<typeof setTimeout> | undefined;
    let last = `${term.cols}x${term.rows}`;
    const ro = new ResizeObserver(() => {
      clearTimeout(settle);
      settle = setTimeout(() => {
        try {
          fit.fit();
        } catch {
          return;
        }
        const size = `${term.cols}x${term.rows}`;
        if (size === last || termId === undefined) return;
        last = size;
        void transport.request('terminal.resize', { term: termId, cols: term.cols, rows: term.rows });
      }, RESIZE_SETTLE_MS);
    });
    ro.observe(el);
    const exitOff = transport.onPush((m) => {
      if (m.push === 'terminal.exit' && m.data.term === termId) setStatus(`ended: ${m.data.reason}`);
    });
    const themeOff = onThemeChange(() => (term.options.theme = terminalTheme()));
    return () => {
      disposed = true;
      clearTimeout(settle);
      ro.disconnect();
      input.dispose();
      binary.dispose();
      exitOff();
      themeOff();
      term.textarea?.removeEventListener('focus', focusin);
      release();
      try {
        park(seat, serialize.serialize({ scrollback: 200 }));
      } catch {
        /* nothing to park */
      }
      if (termId !== undefined) void transport.request('terminal.close', { term: termId });
      if (window.__rigdeskScreens) delete window.__rigdeskScreens[seat];
      termRef.current = undefined;
      searchRef.current = undefined;
      term.dispose();
    };
  }, [seat, transport, frames]);

  // The keyboard follows the grid's focus when asked (a slot key, the palette, a deep link).
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
