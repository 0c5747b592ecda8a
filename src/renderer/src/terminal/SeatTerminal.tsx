import { Terminal } from '@xterm/xterm';
import '@xterm/xterm/css/xterm.css';
import { useEffect, useRef, useState } from 'react';
import { encodeAck, encodeFrame, FRAME } from '../../../shared/contract/app';
import type { Transport } from '../transport';
import { loadFit, loadRenderer, loadSerialize, screenText } from './addons';
import type { FrameRouter } from './frames';
import { WritePacer } from './pacer';
import { park, unpark } from './parking';

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

export function SeatTerminal({ seat, transport, frames }: { seat: string; transport: Transport; frames: FrameRouter }) {
  const box = useRef<HTMLDivElement>(null);
  const [status, setStatus] = useState('connecting');

  useEffect(() => {
    const el = box.current!;
    const term = new Terminal({
      fontSize: 13,
      fontFamily: 'ui-monospace, Menlo, Consolas, monospace',
      cursorBlink: true,
      scrollback: 5000,
      theme: { background: '#0d1117' },
    });
    const fit = loadFit(term);
    const serialize = loadSerialize(term);
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
    const input = term.onData((d) => {
      if (termId !== undefined) transport.sendFrame(encodeFrame(FRAME.INPUT, termId, enc.encode(d)));
    });
    const binary = term.onBinary((d) => {
      if (termId !== undefined)
        transport.sendFrame(
          encodeFrame(
            FRAME.INPUT,
            termId,
            Uint8Array.from(d, (c) => c.charCodeAt(0) & 0xff),
          ),
        );
    });
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
    term.focus();
    return () => {
      disposed = true;
      clearTimeout(settle);
      ro.disconnect();
      input.dispose();
      binary.dispose();
      exitOff();
      release();
      try {
        park(seat, serialize.serialize({ scrollback: 200 }));
      } catch {
        /* nothing to park */
      }
      if (termId !== undefined) void transport.request('terminal.close', { term: termId });
      if (window.__rigdeskScreens) delete window.__rigdeskScreens[seat];
      term.dispose();
    };
  }, [seat, transport, frames]);

  return (
    <div className="terminal-wrap">
      <div className="terminal-status" data-testid="terminal-status">
        {status}
      </div>
      <div className="terminal" ref={box} data-testid="terminal" />
    </div>
  );
}
