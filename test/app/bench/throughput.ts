import { execFile } from 'node:child_process';
import { performance } from 'node:perf_hooks';
import { join } from 'node:path';
import type { BrowserContext, Page } from 'playwright-core';
import { decodeFrame, FRAME } from '../../../src/shared/contract/app';
import { TerminalHub } from '../../../src/main/terminal/hub';
import type { AppWorld } from '../helpers';
import { cpuBetween, sampleCpu, topCpu, treeOf } from './cpu';
import { openSeat } from './heap';

const HEADLESS_CHILD = join(__dirname, 'headless-rate.mjs');

export interface HeadlessRun {
  /** Bytes of `seq 1 N` as a pane prints them (\r\n line ends). */
  bytes: number;
  bytesPerSec: number;
}

/**
 * @xterm/headless fed `seq 1 N`'s bytes directly in 64 KB writes, in a fresh Node process: the
 * parser's own limit. Measured in this process it shared a heap, a GC and an event loop with the
 * engine, the serve host and Playwright, and ran at half its rate for whole stretches of a run
 * (8-10 MB/s in six reps of eight, 20 MB/s in the other two).
 */
export function headlessRate(lines: number, size: PaneSize): Promise<HeadlessRun> {
  return new Promise((res, rej) =>
    execFile(
      process.execPath,
      [HEADLESS_CHILD, String(lines), String(size.cols), String(size.rows)],
      { maxBuffer: 1 << 20 },
      (err, out) => {
        if (err) return rej(err);
        const r = JSON.parse(out) as { bytes: number; ms: number };
        res({ bytes: r.bytes, bytesPerSec: r.bytes / (r.ms / 1000) });
      },
    ),
  );
}

let signals = 0;

/** Runs `cmd` in a seat's pane and resolves when it has finished (tmux wait-for, no polling). */
export function runInPane(w: AppWorld, seat: string, cmd: string, after = ''): Promise<number> {
  const sig = `rdbench-${process.pid}-${signals++}`;
  const pane = w.engine.store.sessions.live(seat)!.paneId;
  const done = new Promise<number>((res) =>
    execFile('tmux', ['-L', w.world.tmux.socketName, 'wait-for', sig], () => res(performance.now())),
  );
  w.world.tmux.run(['send-keys', '-t', pane, '-l', `clear; ${cmd}; tmux wait-for -S ${sig}${after}`]);
  w.world.tmux.run(['send-keys', '-t', pane, 'Enter']);
  return done;
}

export interface PaneSize {
  cols: number;
  rows: number;
}

/** A seat pane's size: what the window's terminal was fitted to, or what tmux alone is given. */
/**
 * The seat alone in the grid (Layout 1, the window's own chord), so the flood runs at the size a
 * person watching one seat sees, not a grid slot's; waits until the pane has taken that size.
 */
async function magnified(page: Page, w: AppWorld, seat: string): Promise<void> {
  // Layout 1 (idempotent, unlike magnify, and the layout is saved for the next page).
  await page.keyboard.press('Control+Shift+Digit1');
  await page.locator('.grid.g-1').waitFor({ timeout: 10_000 });
  // The terminal refits and resizes the pane after the layout changes: wait until it holds still.
  let last = paneSize(w, seat);
  let steadySince = Date.now();
  const deadline = Date.now() + 10_000;
  while (Date.now() < deadline && Date.now() - steadySince < 700) {
    await new Promise((r) => setTimeout(r, 100));
    const now = paneSize(w, seat);
    if (now.cols !== last.cols || now.rows !== last.rows) [last, steadySince] = [now, Date.now()];
  }
}

export function paneSize(w: AppWorld, seat: string): PaneSize {
  const [cols, rows] = w.world.tmux
    .run(['display-message', '-p', '-t', w.engine.store.sessions.live(seat)!.paneId, '#{pane_width} #{pane_height}'])
    .trim()
    .split(' ')
    .map(Number);
  return { cols: cols!, rows: rows! };
}

/**
 * Starts counting CPU; the returned function stops and says who spent it: tmux's server, this
 * process (engine, monitor, serve host), the activity watch's `cat`s (children of the server) and
 * Chromium (children of this process) and this process's tmux attach clients, leaving out those
 * under `skipTrees` (a peer terminal server this process started, counted on its own); `label`
 * prints the busiest processes under RDBENCH_TOP.
 */
export function cpuWindow(serverPid: number, label: string, skipTrees: readonly number[] = []) {
  const c0 = sampleCpu('start');
  const n0 = process.cpuUsage();
  return () => {
    const n1 = process.cpuUsage(n0);
    const c1 = sampleCpu('end');
    if (process.env.RDBENCH_TOP) process.stdout.write(`top cpu, ${label}: ${topCpu(c0, c1)}\n`);
    const chromium = treeOf(c1, process.pid).filter((p) => /chrom/i.test(c1.procs.get(p)!.comm));
    const watch = treeOf(c1, serverPid).filter((p) => c1.procs.get(p)!.comm === 'cat');
    // This process's own tmux clients (the window's attach clients), not those of a peer it started.
    const peers = new Set(skipTrees.flatMap((root) => treeOf(c1, root)));
    const attach = treeOf(c1, process.pid).filter((p) => c1.procs.get(p)!.comm === 'tmux' && !peers.has(p));
    const cpuMs = {
      tmux: cpuBetween(c0, c1, [serverPid]),
      host: Math.round((n1.user + n1.system) / 1000),
      chromium: cpuBetween(c0, c1, chromium),
      watch: cpuBetween(c0, c1, watch),
      attach: cpuBetween(c0, c1, attach),
    };
    return { c0, c1, chromium, cpuMs };
  };
}

export interface AloneRun {
  ms: number;
  /** CPU ms during the flood: tmux's server, this host process (the engine's activity monitor watching the flood) and the watch's `cat`. */
  cpuMs: { tmux: number; host: number; watch: number };
}

/** Gives a seat's window the size every side of a comparison runs at. */
export function resizePane(w: AppWorld, seat: string, size: PaneSize): void {
  const session = w.engine.store.sessions.live(seat)!.sessionId;
  w.world.tmux.run(['resize-window', '-t', session, '-x', String(size.cols), '-y', String(size.rows)]);
}

/** `seq 1 N` in a seat no window shows, at the given size: what tmux alone takes for the flood. */
export async function tmuxAlone(w: AppWorld, seat: string, lines: number, size: PaneSize): Promise<AloneRun> {
  resizePane(w, seat, size);
  const stop = cpuWindow(Number(w.world.tmux.run(['display-message', '-p', '#{pid}']).trim()), 'tmux alone');
  const t0 = performance.now();
  const ms = (await runInPane(w, seat, `seq 1 ${lines}`)) - t0;
  const { tmux, host, watch } = stop().cpuMs;
  return { ms, cpuMs: { tmux, host, watch } };
}

/**
 * Resolves once the seat's xterm has parsed a write after which its screen matches `re`: checked
 * in the page on each of xterm's parse callbacks, so the wait costs the page nothing between
 * writes (polling every animation frame made Chromium produce a frame a vsync, about 8 % of a core
 * here, during the very run it measured).
 */
export function parsedText(page: Page, seat: string, re: string, timeoutMs = 600_000): Promise<void> {
  return page.evaluate(
    ([s, r, ms]) =>
      new Promise<void>((resolve, reject) => {
        const screen = window.__rigdeskScreens?.[s];
        if (!screen) return reject(new Error(`no terminal open for ${s}`));
        const rx = new RegExp(r, 'm');
        let off: () => void = () => undefined;
        const t = setTimeout(() => (off(), reject(new Error(`${s} never showed /${r}/ in ${ms} ms`))), ms);
        const check = () => {
          if (!rx.test(screen.text())) return;
          clearTimeout(t);
          off();
          resolve();
        };
        off = screen.onParsed(check);
        check();
      }),
    [seat, re, timeoutMs] as const,
  );
}

/**
 * Moves the seat's pane out of the viewport without changing its size (a transform, so no refit
 * and no resize of the pane): xterm stops rendering a terminal it cannot see and goes on parsing.
 */
async function moveOffScreen(page: Page, seat: string): Promise<void> {
  await page.evaluate((s) => {
    const el = document.querySelector<HTMLElement>(`[data-pane="${s}"]`);
    if (!el) throw new Error(`no pane for ${s}`);
    el.style.transform = 'translateX(-10000px)';
  }, seat);
  // xterm learns it is out of sight from an IntersectionObserver, on a later frame.
  await page.waitForTimeout(300);
}

export interface BrowserRun {
  renderer: string;
  /** To the window's xterm showing (or, off screen, having parsed) the line after the flood. */
  ms: number;
  /** To the pane itself finishing (tmux parsed every byte). */
  paneMs: number;
  /**
   * CPU ms spent during the run by tmux's server, this host process (engine, monitor, serve),
   * Chromium, the watch's `cat` and the window's tmux attach client.
   */
  cpuMs: { tmux: number; host: number; chromium: number; watch: number; attach: number };
  /** The pane's size, which the window's terminal set (it is the seat's size owner). */
  size: PaneSize;
}

/**
 * `seq 1 N` in a seat shown in a fresh window with the given renderer ('auto': the one the window
 * picks by itself on this machine's GL), to the last line on screen; `url` picks another serve
 * host on the same engine (the gate part compares two).
 */
export async function browserRun(
  w: AppWorld,
  browser: BrowserContext,
  seat: string,
  lines: number,
  renderer: 'dom' | 'webgl' | 'auto',
  url = w.serve.url,
  offScreen = false,
): Promise<BrowserRun> {
  const page = await browser.newPage();
  try {
    await page.goto(`${url}&renderer=${renderer}`);
    await openSeat(page, seat);
    await magnified(page, w, seat);
    const used = await page.evaluate((s) => window.__rigdeskScreens?.[s]?.renderer ?? '?', seat);
    if (offScreen) await moveOffScreen(page, seat);
    // RDBENCH_WARM=N: a first flood of N lines in the same page before the measured one, so the
    // page runs warm, as a window a person keeps open does (a fresh page's first flood costs
    // Chromium about a third more CPU).
    if (process.env.RDBENCH_WARM) {
      const wid = `${process.pid}-${signals}-warm`;
      const wp = runInPane(w, seat, `seq 1 ${process.env.RDBENCH_WARM}`, `; echo bench-${wid}-$((40+2))`);
      await parsedText(page, seat, `^bench-${wid}-42$`);
      await wp;
    }
    const serverPid = Number(w.world.tmux.run(['display-message', '-p', '#{pid}']).trim());
    const cdp = process.env.RDBENCH_DEBUG ? await page.context().newCDPSession(page) : undefined;
    if (cdp) {
      await cdp.send('Profiler.enable');
      await cdp.send('Profiler.setSamplingInterval', { interval: 200 });
      await cdp.send('Profiler.start');
      await cdp.send('Performance.enable');
    }
    const m0 = cdp ? (await cdp.send('Performance.getMetrics')).metrics : [];
    const stop = cpuWindow(serverPid, `${renderer} window`);
    const t0 = performance.now();
    // A marker new to this run (the screen may still show the last one until `clear` runs); the
    // typed command line shows `$((40+2))`, so only the output line matches.
    const id = `${process.pid}-${signals}`;
    const pane = runInPane(w, seat, `seq 1 ${lines}`, `; echo bench-${id}-$((40+2))`);
    await parsedText(page, seat, `^bench-${id}-42$`);
    const end = performance.now();
    const paneAt = await pane;
    const { c0, c1, chromium, cpuMs } = stop();
    if (cdp) {
      const m1 = (await cdp.send('Performance.getMetrics')).metrics;
      const d = m1
        .map((m) => [m.name, +(m.value - (m0.find((x) => x.name === m.name)?.value ?? 0)).toFixed(3)] as const)
        .filter(([, v]) => v !== 0);
      process.stdout.write(`page metrics delta (${renderer}): ${JSON.stringify(Object.fromEntries(d))}\n`);
      const { profile } = await cdp.send('Profiler.stop');
      const dt = new Map<number, number>();
      for (const [i, id] of profile.samples!.entries()) dt.set(id, (dt.get(id) ?? 0) + (profile.timeDeltas![i] ?? 0));
      const self = new Map<string, number>();
      for (const n of profile.nodes) {
        const k = `${n.callFrame.functionName || '(anon)'} ${n.callFrame.url.split('/').pop()}:${n.callFrame.lineNumber}`;
        self.set(k, (self.get(k) ?? 0) + (dt.get(n.id) ?? 0));
      }
      process.stdout.write(
        `page self time (${renderer}):\n${[...self]
          .filter(([k]) => !k.startsWith('(idle)'))
          .sort((a, b) => b[1] - a[1])
          .slice(0, 14)
          .map(([k, v]) => `  ${(v / 1000).toFixed(1)} ms ${k}`)
          .join('\n')}\n`,
      );
    }
    if (process.env.RDBENCH_DEBUG) {
      const { readFileSync } = await import('node:fs');
      const byType = new Map<string, number>();
      for (const p of chromium) {
        let t = 'browser';
        try {
          t = /--type=([\w-]+)/.exec(readFileSync(`/proc/${p}/cmdline`, 'latin1'))?.[1] ?? 'browser';
        } catch {
          /* gone */
        }
        byType.set(t, (byType.get(t) ?? 0) + cpuBetween(c0, c1, [p]));
      }
      process.stdout.write(`chromium by process: ${JSON.stringify(Object.fromEntries(byType))}\n`);
    }
    return {
      renderer: used,
      ms: end - t0,
      paneMs: paneAt - t0,
      size: paneSize(w, seat),
      cpuMs,
    };
  } finally {
    await page.close();
  }
}

export interface ClientRun {
  /** To the viewer's bytes carrying the line after the flood (what the window would then parse). */
  ms: number;
  /** To the pane itself finishing. */
  paneMs: number;
  /** Bytes tmux sent this viewer during the run. */
  clientBytes: number;
  cpuMs: { tmux: number; host: number; watch: number };
}

/**
 * `seq 1 N` in a seat watched by the window's own host path with no window: a TerminalHub viewer
 * (the node-pty attach client, its read gate, batching and flow control) whose frames are acked at
 * once and dropped. What every client of the pane pays, measured on the client the window uses;
 * the window's rate over this one is what the window itself (WebSocket, xterm, Chromium) costs.
 */
export async function hostClientRun(w: AppWorld, seat: string, lines: number, size: PaneSize): Promise<ClientRun> {
  const owner = {};
  const hub = new TerminalHub(w.engine);
  const id = `${process.pid}-${signals}`;
  const marker = Buffer.from(`bench-${id}-42`);
  let seen: (() => void) | undefined;
  let clientBytes = 0;
  let carry = Buffer.alloc(0);
  let term = 0;
  const opened = await hub.open(owner, seat, size.cols, size.rows, {
    frame: (f) => {
      const d = decodeFrame(f);
      if (!d || d.kind !== FRAME.OUTPUT) return;
      clientBytes += d.payload.length;
      hub.ack(owner, d.term, d.payload.length);
      // The marker may straddle two frames: keep the previous frame's last bytes in front.
      const hay = Buffer.concat([carry, Buffer.from(d.payload)]);
      if (seen && hay.includes(marker)) seen();
      carry = hay.subarray(Math.max(0, hay.length - marker.length));
    },
    exit: () => undefined,
  });
  if (!opened.ok) throw new Error(`no viewer for ${seat}: ${opened.message}`);
  term = opened.term;
  try {
    // The same pane size as the other sides (the viewer took its size less tmux's status line).
    resizePane(w, seat, size);
    await new Promise((r) => setTimeout(r, 500));
    const stop = cpuWindow(
      Number(w.world.tmux.run(['display-message', '-p', '#{pid}']).trim()),
      'host client, no window',
    );
    const shown = new Promise<number>((res) => (seen = () => res(performance.now())));
    const b0 = clientBytes;
    const t0 = performance.now();
    const pane = runInPane(w, seat, `seq 1 ${lines}`, `; echo bench-${id}-$((40+2))`);
    const end = await shown;
    const paneAt = await pane;
    const { tmux, host, watch } = stop().cpuMs;
    return { ms: end - t0, paneMs: paneAt - t0, clientBytes: clientBytes - b0, cpuMs: { tmux, host, watch } };
  } finally {
    hub.close(owner, term);
  }
}
