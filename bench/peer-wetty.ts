import { type ChildProcess, spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { createServer } from 'node:net';
import { dirname, join } from 'node:path';
import { performance } from 'node:perf_hooks';
import type { BrowserContext, Page } from 'playwright-core';
import { dispatch } from '../src/main/engine/api';
import { statusLines } from '../src/main/terminal/hub';
import { viewerEnv } from '../src/main/terminal/pty';
import { cpuBetween, treeOf } from '../test/app/bench/cpu';
import { cpuWindow, type PaneSize, paneSize, resizePane, runInPane } from '../test/app/bench/throughput';
import type { AppWorld } from '../test/app/helpers';

/**
 * WeTTY, the web terminal a person would otherwise put in front of a tmux pane (`wetty` on npm:
 * an Express + socket.io server that runs a command in a node-pty, and an xterm.js page), as the
 * terminal bench's peer. It runs here as a child of the bench, on 127.0.0.1 only, with its command
 * set to the very tmux attach client the window's host starts for the seat (the engine's attach
 * argv with `-f ignore-size`), so both sides are the same tmux client of the same pane at the same
 * size, and differ only in what carries the bytes to the page and what the page does with them.
 *
 * WeTTY runs a local command only when it runs as root (otherwise it ssh-es to its host, which
 * this bench never does): `wettyMissing` says so, and the peer part then skips with that reason.
 */

const req = createRequire(__filename);

/** Why WeTTY cannot run here, or undefined when it can. */
export function wettyMissing(): string | undefined {
  try {
    wettyMain();
  } catch {
    return 'the wetty package is not installed (npm install: it is a devDependency)';
  }
  if (process.getuid?.() !== 0)
    return 'WeTTY runs a local command only as root; as any other user it would ssh to its host, which this bench does not do';
  return undefined;
}

function wettyMain(): string {
  // The package exports only its server module; its CLI sits beside it.
  return join(dirname(req.resolve('wetty')), 'main.js');
}

export interface WettyServer {
  url: string;
  pid: number;
  close(): Promise<void>;
}

/** A port on 127.0.0.1 nobody holds right now (WeTTY prints the port it was given, not the one bound). */
function freePort(): Promise<number> {
  return new Promise((res, rej) => {
    const s = createServer();
    s.once('error', rej);
    s.listen(0, '127.0.0.1', () => {
      const a = s.address();
      s.close(() => (a && typeof a === 'object' ? res(a.port) : rej(new Error('no port'))));
    });
  });
}

/**
 * WeTTY's `--command` reaches its pty through `env -S`, which splits on spaces and expands `$`:
 * every argument goes in single quotes, and one that holds a quote or a backslash is refused
 * (the bench's own socket names and session ids never do).
 */
export function wettyCommand(argv: readonly string[]): string {
  for (const a of argv) if (/['\\]/.test(a)) throw new Error(`cannot pass ${JSON.stringify(a)} to WeTTY's command`);
  return argv.map((a) => `'${a}'`).join(' ');
}

/** WeTTY's server with its command attaching to the seat's session, as the window's viewer does. */
export async function startWetty(w: AppWorld, seat: string): Promise<WettyServer> {
  const at = await dispatch(w.engine, 'attach', { seat });
  if (!at.ok) throw new Error(`no attach argv for ${seat}: ${at.message}`);
  const command = wettyCommand([...(at.argv as string[]), '-f', 'ignore-size']);
  const port = await freePort();
  // The viewer's own environment (no TMUX, xterm-256color); nothing that would send WeTTY to ssh.
  const env = viewerEnv(process.env);
  for (const k of ['FORCESSH', 'SSHHOST', 'SSHPORT', 'SSHUSER', 'COMMAND', 'BASE', 'PORT']) delete env[k];
  const child = spawn(
    process.execPath,
    [
      wettyMain(),
      '--host',
      '127.0.0.1',
      '--port',
      String(port),
      '--ssh-host',
      '127.0.0.1',
      '--command',
      command,
      '--log-level',
      'warn',
    ],
    { env, stdio: ['ignore', 'ignore', 'pipe'] },
  );
  let stderr = '';
  child.stderr?.on('data', (d) => (stderr = (stderr + String(d)).slice(-4000)));
  const url = `http://127.0.0.1:${port}/`;
  const deadline = Date.now() + 20_000;
  for (;;) {
    if (child.exitCode !== null) throw new Error(`WeTTY exited ${child.exitCode}: ${stderr}`);
    const ok = await fetch(url).then(
      (r) => r.ok,
      () => false,
    );
    if (ok) break;
    if (Date.now() > deadline) {
      stop(child);
      throw new Error(`WeTTY never answered on ${url}: ${stderr}`);
    }
    await new Promise((r) => setTimeout(r, 100));
  }
  return {
    url,
    pid: child.pid!,
    close: async () => {
      stop(child);
      await new Promise((r) => (child.exitCode !== null ? r(undefined) : child.once('exit', r)));
    },
  };
}

function stop(child: ChildProcess): void {
  if (child.exitCode === null) child.kill('SIGTERM');
}

function ppidOf(pid: number): number {
  try {
    const s = readFileSync(`/proc/${pid}/stat`, 'latin1');
    return Number(s.slice(s.lastIndexOf(')') + 2).split(' ')[1]);
  } catch {
    return -1;
  }
}

/** The session's tmux clients: pid, size, and whose child each is. */
export function clientsOf(w: AppWorld, session: string): { pid: number; ppid: number; cols: number; rows: number }[] {
  const out = w.world.tmux.run(['list-clients', '-t', session, '-F', '#{client_pid} #{client_width} #{client_height}']);
  return out
    .split('\n')
    .filter(Boolean)
    .map((l) => {
      const [pid, cols, rows] = l.split(' ').map(Number);
      return { pid: pid!, ppid: ppidOf(pid!), cols: cols!, rows: rows! };
    });
}

async function until(what: string, ok: () => boolean, ms = 10_000): Promise<void> {
  const deadline = Date.now() + ms;
  while (!ok()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

/** Waits until no client of the session is a child of this process's tree (a closed page's viewer has gone). */
export async function viewersGone(w: AppWorld, seat: string, peerPid: number): Promise<void> {
  const session = w.engine.store.sessions.live(seat)!.sessionId;
  await until(`${seat}'s viewers to end`, () =>
    clientsOf(w, session).every((c) => c.ppid !== process.pid && c.ppid !== peerPid),
  );
}

/**
 * Resolves once WeTTY's xterm has parsed a write after which its screen matches `re`: the same
 * test, on the same xterm callback, as the window's side (`parsedText`).
 */
function peerParsed(page: Page, re: string, timeoutMs = 600_000): Promise<void> {
  return page.evaluate(
    ([r, ms]) =>
      new Promise<void>((resolve, reject) => {
        // WeTTY keeps its terminal on window.wetty_term (its on-screen keys use it).
        const term = (window as unknown as { wetty_term?: import('@xterm/xterm').Terminal }).wetty_term;
        if (!term) return reject(new Error('no WeTTY terminal on the page'));
        const rx = new RegExp(r, 'm');
        // Only the rows at and just above the cursor, where the marker lands (the prompt follows
        // it): WeTTY writes every socket message as it comes, hundreds a second in a flood, and
        // reading the whole screen after each (as the window's side does about ten times a
        // second, its writes paced) would bill this harness's work to WeTTY.
        const text = () => {
          const b = term.buffer.active;
          const out: string[] = [];
          for (let y = Math.max(0, b.cursorY - 3); y <= b.cursorY; y++)
            out.push(b.getLine(b.baseY + y)?.translateToString(true) ?? '');
          return out.join('\n');
        };
        const t = setTimeout(() => (sub.dispose(), reject(new Error(`WeTTY never showed /${r}/ in ${ms} ms`))), ms);
        const check = () => {
          if (!rx.test(text())) return;
          clearTimeout(t);
          sub.dispose();
          resolve();
        };
        const sub = term.onWriteParsed(check);
        check();
      }),
    [re, timeoutMs] as const,
  );
}

export interface PeerRun {
  /** Which renderer WeTTY's xterm drew with: its WebGL addon, or xterm's DOM renderer when WebGL was refused. */
  renderer: string;
  /** Characters WeTTY's page wrote into its xterm during the run: what tmux sent its client, as text. */
  written: number;
  ms: number;
  paneMs: number;
  size: PaneSize;
  /**
   * CPU ms during the run: tmux's server, this process (the engine and its activity monitor, which
   * watch the flood on both sides; no viewer of Rigdesk's here), Chromium, the watch's `cat`,
   * WeTTY's server and its tmux attach client.
   */
  cpuMs: { tmux: number; host: number; chromium: number; watch: number; wetty: number; attach: number };
}

let runs = 0;

/**
 * `seq 1 N` in the seat shown by a fresh WeTTY page in the same Chromium, its xterm at the pane's
 * size (its fit turned off through WeTTY's own saved options, the font at the window's 13 px so
 * both draw the same grid in about the same pixels), to the line after the flood parsed.
 * `noWebgl` hides WebGL from the page, so WeTTY falls back to xterm's DOM renderer as it does
 * where there is none.
 */
export async function wettyRun(
  w: AppWorld,
  browser: BrowserContext,
  wetty: WettyServer,
  seat: string,
  lines: number,
  size: PaneSize,
  noWebgl = false,
): Promise<PeerRun> {
  const session = w.engine.store.sessions.live(seat)!.sessionId;
  const status = statusLines(w.world.tmux.run(['display-message', '-p', '-t', session, '#{status}']).trim());
  const page = await browser.newPage();
  try {
    await page.addInitScript(
      ([hideGl]) => {
        localStorage.options = JSON.stringify({ xterm: { fontSize: 13 }, wettyVoid: 0, wettyFitTerminal: false });
        if (!hideGl) return;
        const get = HTMLCanvasElement.prototype.getContext;
        HTMLCanvasElement.prototype.getContext = function (this: HTMLCanvasElement, kind: string, ...rest: unknown[]) {
          if (kind === 'webgl2' || kind === 'webgl') return null;
          return (get as (...a: unknown[]) => RenderingContext | null).call(this, kind, ...rest);
        } as typeof get;
      },
      [noWebgl] as const,
    );
    await page.goto(wetty.url);
    await page.waitForFunction(() => 'wetty_term' in window, undefined, { timeout: 20_000 });
    // WeTTY's client for this page: the pty's tmux client, a child of WeTTY's server.
    await until('WeTTY to attach', () => clientsOf(w, session).some((c) => c.ppid === wetty.pid), 20_000);
    await page.evaluate(
      ([cols, rows]) =>
        (window as unknown as { wetty_term: import('@xterm/xterm').Terminal }).wetty_term.resize(cols, rows),
      [size.cols, size.rows + status] as const,
    );
    await until('WeTTY client at the pane size', () =>
      clientsOf(w, session).some((c) => c.ppid === wetty.pid && c.cols === size.cols && c.rows === size.rows + status),
    );
    resizePane(w, seat, size);
    await new Promise((r) => setTimeout(r, 500));
    const renderer = await page.evaluate(() =>
      document.querySelector('#terminal .xterm-rows') && !document.querySelector('#terminal canvas') ? 'dom' : 'webgl',
    );
    const id = `peer-${process.pid}-${runs++}`;
    if (process.env.RDBENCH_WARM) {
      const wp = runInPane(w, seat, `seq 1 ${process.env.RDBENCH_WARM}`, `; echo bench-${id}w-$((40+2))`);
      await peerParsed(page, `^bench-${id}w-42$`);
      await wp;
    }
    const profile = process.env.RDBENCH_DEBUG ? await startProfile(page) : undefined;
    const stopCpu = cpuWindow(
      Number(w.world.tmux.run(['display-message', '-p', '#{pid}']).trim()),
      `WeTTY${noWebgl ? ' (no WebGL)' : ''}`,
      [wetty.pid],
    );
    await countWrites(page);
    const t0 = performance.now();
    const pane = runInPane(w, seat, `seq 1 ${lines}`, `; echo bench-${id}-$((40+2))`);
    await peerParsed(page, `^bench-${id}-42$`);
    const end = performance.now();
    const paneAt = await pane;
    const { c0, c1, cpuMs } = stopCpu();
    const written = await page.evaluate(() => (window as unknown as { __peerWritten: number }).__peerWritten);
    await profile?.(`WeTTY${noWebgl ? ' (no WebGL)' : ''}`);
    const wettyTree = treeOf(c1, wetty.pid);
    return {
      renderer,
      written,
      ms: end - t0,
      paneMs: paneAt - t0,
      size: paneSize(w, seat),
      cpuMs: {
        tmux: cpuMs.tmux,
        host: cpuMs.host,
        chromium: cpuMs.chromium,
        watch: cpuMs.watch,
        wetty: cpuBetween(c0, c1, [wetty.pid]),
        attach: cpuBetween(
          c0,
          c1,
          wettyTree.filter((p) => p !== wetty.pid),
        ),
      },
    };
  } finally {
    await page.close();
    await viewersGone(w, seat, wetty.pid);
  }
}

/**
 * Counts what WeTTY's page writes into its xterm from now on (its socket handler looks `write` up
 * on the terminal at each message, so a wrapper on the instance sees every one).
 */
function countWrites(page: Page): Promise<void> {
  return page.evaluate(() => {
    const g = window as unknown as { wetty_term: import('@xterm/xterm').Terminal; __peerWritten: number };
    const term = g.wetty_term;
    const write = term.write.bind(term);
    g.__peerWritten = 0;
    term.write = (data: string | Uint8Array, cb?: () => void) => {
      g.__peerWritten += data.length;
      write(data, cb);
    };
  });
}

/**
 * RDBENCH_DEBUG: the page's JS self time by function during the run, sampled by V8's profiler
 * over CDP, printed as the window's side prints its own (throughput.ts), to say where each page's
 * time went.
 */
async function startProfile(page: Page): Promise<(label: string) => Promise<void>> {
  const cdp = await page.context().newCDPSession(page);
  await cdp.send('Profiler.enable');
  await cdp.send('Profiler.setSamplingInterval', { interval: 200 });
  await cdp.send('Profiler.start');
  return async (label) => {
    const { profile } = await cdp.send('Profiler.stop');
    const dt = new Map<number, number>();
    for (const [i, id] of profile.samples!.entries()) dt.set(id, (dt.get(id) ?? 0) + (profile.timeDeltas![i] ?? 0));
    const self = new Map<string, number>();
    for (const n of profile.nodes) {
      const k = `${n.callFrame.functionName || '(anon)'} ${n.callFrame.url.split('/').pop()}:${n.callFrame.lineNumber}`;
      self.set(k, (self.get(k) ?? 0) + (dt.get(n.id) ?? 0));
    }
    const top = [...self]
      .filter(([k]) => !k.startsWith('(idle)'))
      .sort((a, b) => b[1] - a[1])
      .slice(0, 14)
      .map(([k, v]) => `  ${(v / 1000).toFixed(1)} ms ${k}`);
    process.stdout.write(`page self time (${label}):\n${top.join('\n')}\n`);
  };
}
