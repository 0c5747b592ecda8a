import { execFile } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { performance } from 'node:perf_hooks';
import type { BrowserContext } from 'playwright-core';
import type { AppWorld } from '../helpers';
import { median, sleep } from './clients';
import { jsHeap, openSeat } from './heap';

export interface FloodReport {
  bytes: number;
  seconds: number;
  /** Round trips in the calm seat's window (type `echo probe-K`, see `probe-K`) during the flood. */
  probeMs: { n: number; median: number; p95: number; max: number };
  /** `ps` over the window contract during the flood: the engine stays responsive. */
  psMs: { n: number; median: number; max: number };
  /** The flooded window's JS heap (no GC while sampling; GC'd at the start and the end). */
  heapMB: { start: number; max: number; end: number };
  /** The host process (engine, serve, node-pty): resident set. */
  hostRssMB: { start: number; max: number; end: number };
  tmuxRssMB: { start: number; max: number; end: number };
  pausedSamples: number;
  samples: number;
}

const rssOf = (pid: number) => {
  try {
    return Number(/VmRSS:\s+(\d+)/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))?.[1] ?? 0) / 1024;
  } catch {
    return 0;
  }
};

/**
 * A flood of `bytes` in one seat while another seat is used in a second window: the calm seat's
 * round trips, the engine's answers and memory (the flooded window, the host, tmux) are sampled
 * once per second until the flood ends and the flooded window shows its end marker.
 */
export async function floodWhileWorking(
  w: AppWorld,
  browser: BrowserContext,
  floodSeat: string,
  calmSeat: string,
  bytes: number,
  urlExtra = '',
): Promise<FloodReport> {
  const [a, b] = [await browser.newPage(), await browser.newPage()];
  const url = `${w.serve.url}${urlExtra}`;
  await a.goto(url);
  await b.goto(url);
  await openSeat(a, floodSeat);
  await openSeat(b, calmSeat);
  const { WireClient } = await import('../helpers');
  const wire = await WireClient.open(w.serve);
  const tmuxPid = Number(w.world.tmux.run(['display-message', '-p', '#{pid}']).trim());
  const termA = await a.evaluate((s) => window.__rigdeskScreens?.[s]?.term, floodSeat);
  const pane = w.engine.store.sessions.live(floodSeat)!.paneId;
  const h0 = await jsHeap(a);
  const rep: FloodReport = {
    bytes,
    seconds: 0,
    probeMs: { n: 0, median: 0, p95: 0, max: 0 },
    psMs: { n: 0, median: 0, max: 0 },
    heapMB: { start: h0.used / 1e6, max: h0.used / 1e6, end: 0 },
    hostRssMB: { start: process.memoryUsage().rss / 1e6, max: 0, end: 0 },
    tmuxRssMB: { start: rssOf(tmuxPid), max: 0, end: 0 },
    pausedSamples: 0,
    samples: 0,
  };
  let ended = false;
  const done = new Promise<void>((res) =>
    execFile('tmux', ['-L', w.world.tmux.socketName, 'wait-for', 'rdbench-flood-end'], () => ((ended = true), res())),
  );
  const t0 = performance.now();
  const line = 'rigdesk flood 0123456789 abcdefghijklmnopqrstuvwxyz ABCDEFGHIJKLMNOPQRSTUVWXYZ';
  w.world.tmux.run([
    'send-keys',
    '-t',
    pane,
    '-l',
    `clear; yes '${line}' | head -c ${bytes}; tmux wait-for -S rdbench-flood-end; echo; echo flood-$((2+2))-end`,
  ]);
  w.world.tmux.run(['send-keys', '-t', pane, 'Enter']);
  const probes: number[] = [];
  const ps: number[] = [];
  for (let k = 0; !ended; k++) {
    const p0 = performance.now();
    await b.keyboard.type(`echo probe-${k}`);
    await b.keyboard.press('Enter');
    await b.waitForFunction(
      ([s, re]) => new RegExp(re, 'm').test(window.__rigdeskScreens?.[s]?.text() ?? ''),
      [calmSeat, `^probe-${k}$`] as const,
      { polling: 'raf', timeout: 120_000 },
    );
    probes.push(performance.now() - p0);
    const q0 = performance.now();
    await wire.call('ps', {});
    ps.push(performance.now() - q0);
    const h = await jsHeap(a, false);
    rep.heapMB.max = Math.max(rep.heapMB.max, h.used / 1e6);
    rep.hostRssMB.max = Math.max(rep.hostRssMB.max, process.memoryUsage().rss / 1e6);
    rep.tmuxRssMB.max = Math.max(rep.tmuxRssMB.max, rssOf(tmuxPid));
    if (termA !== undefined && w.serve.ctx.terminals.inspect(termA)?.flow.paused) rep.pausedSamples++;
    rep.samples++;
    await sleep(Math.max(0, 1000 - (performance.now() - p0)));
  }
  await done;
  rep.seconds = (performance.now() - t0) / 1000;
  await a.waitForFunction((s) => /^flood-4-end$/m.test(window.__rigdeskScreens?.[s]?.text() ?? ''), floodSeat, {
    polling: 100,
    timeout: 120_000,
  });
  rep.heapMB.end = (await jsHeap(a)).used / 1e6;
  rep.hostRssMB.end = process.memoryUsage().rss / 1e6;
  rep.tmuxRssMB.end = rssOf(tmuxPid);
  const sorted = [...probes].sort((x, y) => x - y);
  rep.probeMs = {
    n: probes.length,
    median: median(probes),
    p95: sorted[Math.floor(sorted.length * 0.95)] ?? NaN,
    max: sorted.at(-1) ?? NaN,
  };
  rep.psMs = { n: ps.length, median: median(ps), max: Math.max(...ps) };
  wire.close();
  await a.close();
  await b.close();
  return rep;
}
