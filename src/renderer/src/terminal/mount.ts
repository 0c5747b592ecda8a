import { SearchAddon } from '@xterm/addon-search';
import { Terminal } from '@xterm/xterm';
import { encodeAck, encodeFrame, FRAME } from '../../../shared/contract/app';
import { chordOf } from '../state/keys';
import type { Transport } from '../transport';
import { loadFit, loadRenderer, loadSerialize, screenText } from './addons';
import type { FrameRouter } from './frames';
import { WritePacer } from './pacer';
import { park, unpark } from './parking';
import { contrastFor, onThemeChange, terminalTheme } from './theme';

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

export interface Mounted {
  term: Terminal;
  search: SearchAddon;
  dispose(): void;
}

export interface MountOptions {
  seat: string;
  transport: Transport;
  frames: FrameRouter;
  setStatus: (s: string) => void;
  onFocus: () => void;
}

/** xterm with its addons, the last parked screen written back, in `el`. */
function createTerminal(el: HTMLElement, seat: string) {
  const term = new Terminal({
    fontSize: 13,
    fontFamily: 'ui-monospace, "SF Mono", Menlo, Consolas, "DejaVu Sans Mono", monospace',
    cursorBlink: false,
    scrollback: 5000,
    theme: terminalTheme(),
    minimumContrastRatio: contrastFor(),
    allowProposedApi: true,
  });
  // The app's chords go to the window, every other key to the pane.
  term.attachCustomKeyEventHandler((e) => chordOf(e) === undefined);
  const fit = loadFit(term);
  const serialize = loadSerialize(term);
  const search = new SearchAddon();
  term.loadAddon(search);
  term.open(el);
  const renderer = loadRenderer(term, PREFER === 'webgl' || PREFER === 'dom' ? PREFER : undefined);
  const snapshot = unpark(seat);
  if (snapshot) term.write(snapshot);
  try {
    fit.fit();
  } catch {
    /* not laid out yet; the first settle fits */
  }
  return { term, fit, serialize, search, renderer };
}

/** Refits on a settled resize, and tells the host the new size when it changed. */
function watchSize(
  el: HTMLElement,
  term: Terminal,
  fit: { fit(): void },
  resize: (cols: number, rows: number) => void,
) {
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
      if (size === last) return;
      last = size;
      resize(term.cols, term.rows);
    }, RESIZE_SETTLE_MS);
  });
  ro.observe(el);
  return () => {
    clearTimeout(settle);
    ro.disconnect();
  };
}

/**
 * One live pane: a viewer opened on the host (`terminal.open`), its output paced into xterm and
 * acked once parsed (the host's flow control), keys sent as input frames. Disposed, it parks the
 * screen, closes the viewer and frees xterm.
 */
export function mountTerminal(el: HTMLElement, o: MountOptions): Mounted {
  const { seat, transport, frames } = o;
  const { term, fit, serialize, search, renderer } = createTerminal(el, seat);
  let termId: number | undefined;
  let disposed = false;
  let release: () => void = () => undefined;
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
      if (!r.ok) return o.setStatus(`${r.code}: ${r.message}`);
      if (disposed) return void transport.request('terminal.close', { term: r.term });
      termId = r.term;
      o.setStatus('live');
      const pacer = new WritePacer(
        (data, parsed) => term.write(data, parsed),
        (n) => transport.sendFrame(encodeAck(r.term, n)),
      );
      const unclaim = frames.claim(r.term, (payload) => pacer.push(payload));
      release = () => (unclaim(), pacer.dispose());
    });
  const enc = new TextEncoder();
  const send = (bytes: Uint8Array) => {
    if (termId !== undefined) transport.sendFrame(encodeFrame(FRAME.INPUT, termId, bytes));
  };
  const input = term.onData((d) => send(enc.encode(d)));
  const binary = term.onBinary((d) => send(Uint8Array.from(d, (c) => c.charCodeAt(0) & 0xff)));
  const focusin = () => o.onFocus();
  term.textarea?.addEventListener('focus', focusin);
  const sizeOff = watchSize(el, term, fit, (cols, rows) => {
    if (termId !== undefined) void transport.request('terminal.resize', { term: termId, cols, rows });
  });
  const exitOff = transport.onPush((m) => {
    if (m.push === 'terminal.exit' && m.data.term === termId) o.setStatus(`ended: ${m.data.reason}`);
  });
  const themeOff = onThemeChange(() => {
    term.options.theme = terminalTheme();
    term.options.minimumContrastRatio = contrastFor();
  });
  const dispose = () => {
    disposed = true;
    sizeOff();
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
    term.dispose();
  };
  return { term, search, dispose };
}
