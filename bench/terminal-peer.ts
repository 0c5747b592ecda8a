import os from 'node:os';
import type { BrowserContext } from 'playwright-core';
import { median } from '../test/app/bench/clients';
import {
  type AloneRun,
  type BrowserRun,
  browserRun,
  type ClientRun,
  hostClientRun,
  type PaneSize,
  tmuxAlone,
} from '../test/app/bench/throughput';
import type { AppWorld } from '../test/app/helpers';
import { type PeerRun, startWetty, viewersGone, type WettyServer, wettyRun } from './peer-wetty';

/**
 * The terminal bench's peer part: the window and WeTTY on one pane, one size, one Chromium, fed
 * the same `seq 1 N` in each rep, one after the other in an order that rotates every rep (tmux
 * alone at the same size first or last, alternating, as the anchor of each rep's load). The
 * verdict is Rigdesk's rate over WeTTY's in each rep, the median of those ratios.
 */

export type PeerSide = 'wetty' | 'wetty-dom';
export const PEER_LABEL: Record<PeerSide, string> = {
  wetty: 'WeTTY',
  'wetty-dom': 'WeTTY on DOM (WebGL hidden)',
};
/** The window must be at least as fast as the peer: Rigdesk's rate over WeTTY's, median of the reps. */
export const PEER_TARGET = 1.0;

export interface PeerRep {
  alone: AloneRun;
  /** The window's host path with no window (its attach client, read gate, batching): what tmux sends the window. */
  client: ClientRun;
  window: BrowserRun;
  peers: Partial<Record<PeerSide, PeerRun>>;
  order: string[];
  loadavg: number;
}

/** Bytes `seq 1 n` prints through a pane (each line ends in \r\n there). */
export function seqBytes(n: number): number {
  let bytes = 0;
  for (let d = 1, lo = 1; lo <= n; d++, lo *= 10) bytes += (Math.min(n, lo * 10 - 1) - lo + 1) * (d + 2);
  return bytes;
}

export async function peerReps(
  w: AppWorld,
  browser: BrowserContext,
  o: { seat: string; bare: string; lines: number; reps: number; sides: PeerSide[]; log: (s: string) => void },
): Promise<{ size: PaneSize; windowRenderer: string; reps: PeerRep[] }> {
  // The window fits the pane to itself (it owns the seat's size): its warm-up run sets the size
  // every side then runs at, and lets it pick its renderer as it does for a person.
  const warm = await browserRun(w, browser, o.seat, Math.min(o.lines, 100_000), 'auto');
  const size = warm.size;
  let wetty: WettyServer | undefined;
  const reps: PeerRep[] = [];
  try {
    wetty = await startWetty(w, o.seat);
    await viewersGone(w, o.seat, wetty.pid);
    // A first WeTTY page too, so neither side's first page in the reps is its coldest.
    for (const s of o.sides)
      await wettyRun(w, browser, wetty, o.seat, Math.min(o.lines, 100_000), size, s === 'wetty-dom');
    const sides = ['window', ...o.sides];
    for (let i = 0; i < o.reps; i++) {
      // Rotated each rep, so no side always runs first, or right after the same other side.
      const order = sides.map((_, j) => sides[(i + j) % sides.length]!);
      const peers: PeerRep['peers'] = {};
      let win: BrowserRun | undefined;
      const early = i % 2 === 0 ? await tmuxAlone(w, o.bare, o.lines, size) : undefined;
      for (const s of order) {
        if (s === 'window') {
          win = await browserRun(w, browser, o.seat, o.lines, 'auto');
          await viewersGone(w, o.seat, wetty.pid);
        } else peers[s as PeerSide] = await wettyRun(w, browser, wetty, o.seat, o.lines, size, s === 'wetty-dom');
      }
      const alone = early ?? (await tmuxAlone(w, o.bare, o.lines, size));
      // What the window's client is sent for this flood, beside what WeTTY's page was written.
      const client = await hostClientRun(w, o.seat, o.lines, size);
      await viewersGone(w, o.seat, wetty.pid);
      const rep: PeerRep = { alone, client, window: win!, peers, order, loadavg: os.loadavg()[0]! };
      reps.push(rep);
      const fmtPeer = (s: PeerSide) => {
        const p = peers[s];
        return p
          ? `${PEER_LABEL[s]} (${p.renderer}) ${(p.ms / 1000).toFixed(2)} s (its pane ${(p.paneMs / 1000).toFixed(2)} s; its xterm written ${(p.written / 1e6).toFixed(1)} MB), ${(p.ms / win!.ms).toFixed(2)}x (cpu tmux ${p.cpuMs.tmux} / wetty ${p.cpuMs.wetty} / its client ${p.cpuMs.attach} / chromium ${p.cpuMs.chromium} / engine ${p.cpuMs.host} ms; pane ${p.size.cols}x${p.size.rows})`
          : '';
      };
      o.log(
        `  rep ${i + 1} [${order.join(' → ')}]: tmux alone ${(alone.ms / 1000).toFixed(2)} s; the window's client sent ${(client.clientBytes / 1e6).toFixed(2)} MB; window (${win!.renderer}) ${(win!.ms / 1000).toFixed(2)} s (its pane ${(win!.paneMs / 1000).toFixed(2)} s; cpu tmux ${win!.cpuMs.tmux} / host ${win!.cpuMs.host} / its client ${win!.cpuMs.attach} / chromium ${win!.cpuMs.chromium} ms; pane ${win!.size.cols}x${win!.size.rows}); ${o.sides.map(fmtPeer).join('; ')}; load ${rep.loadavg.toFixed(1)}`,
      );
    }
  } finally {
    await wetty?.close();
  }
  return { size, windowRenderer: warm.renderer, reps };
}

/** Medians over the reps, the verdict lines, and what the results file keeps. */
export function peerSummary(
  reps: PeerRep[],
  sides: PeerSide[],
  lines: number,
  minReps: number,
  log: (s: string) => void,
): Record<string, unknown> {
  const bytes = seqBytes(lines);
  const mbps = (ms: number) => bytes / 1e6 / (ms / 1000);
  const med = (xs: number[]) => median(xs);
  const win = {
    renderer: reps[0]?.window.renderer,
    bytesPerSec: mbps(med(reps.map((r) => r.window.ms))) * 1e6,
    ratioToTmuxAlone: med(reps.map((r) => r.alone.ms / r.window.ms)),
    paneRatioToTmuxAlone: med(reps.map((r) => r.alone.ms / r.window.paneMs)),
    medianClientBytes: med(reps.map((r) => r.client.clientBytes)),
    medianCpuMs: {
      tmux: med(reps.map((r) => r.window.cpuMs.tmux)),
      server: med(reps.map((r) => r.window.cpuMs.host + r.window.cpuMs.attach)),
      chromium: med(reps.map((r) => r.window.cpuMs.chromium)),
    },
  };
  log(
    `  window (${win.renderer}): ${(win.bytesPerSec / 1e6).toFixed(1)} MB/s, ${(100 * win.ratioToTmuxAlone).toFixed(0)} % of tmux alone (its pane ${(100 * win.paneRatioToTmuxAlone).toFixed(0)} %); its client is sent ${(win.medianClientBytes / 1e6).toFixed(2)} MB of the ${(bytes / 1e6).toFixed(1)} MB flood; cpu ms (medians) tmux ${win.medianCpuMs.tmux}, Rigdesk's host with the engine and its attach client ${win.medianCpuMs.server}, chromium ${win.medianCpuMs.chromium}`,
  );
  const out: Record<string, unknown> = { bytes, window: win };
  const verdicts: string[] = [];
  for (const s of sides) {
    const paired = reps.filter((r) => r.peers[s]);
    if (!paired.length) continue;
    const ratios = paired.map((r) => r.peers[s]!.ms / r.window.ms);
    const ratio = med(ratios);
    const runs = paired.map((r) => r.peers[s]!);
    const peer = {
      renderer: runs[0]!.renderer,
      bytesPerSec: mbps(med(runs.map((p) => p.ms))) * 1e6,
      ratioToTmuxAlone: med(paired.map((r) => r.alone.ms / r.peers[s]!.ms)),
      paneRatioToTmuxAlone: med(paired.map((r) => r.alone.ms / r.peers[s]!.paneMs)),
      medianWritten: med(runs.map((p) => p.written)),
      medianCpuMs: {
        tmux: med(runs.map((p) => p.cpuMs.tmux)),
        // WeTTY's node server and its attach client; the engine's share (its activity monitor
        // watching the flood, the same on both sides) is listed apart.
        server: med(runs.map((p) => p.cpuMs.wetty + p.cpuMs.attach)),
        engine: med(runs.map((p) => p.cpuMs.host)),
        chromium: med(runs.map((p) => p.cpuMs.chromium)),
      },
    };
    const judged = paired.length >= minReps;
    const met = judged && ratio >= PEER_TARGET;
    const atOrOver = ratios.filter((x) => x >= PEER_TARGET).length;
    out[s] = {
      ...peer,
      windowRateOverPeer: { median: ratio, min: Math.min(...ratios), max: Math.max(...ratios), perRep: ratios },
      repsAtOrOverTarget: atOrOver,
      target: { windowRateOverPeer: PEER_TARGET, minReps: minReps, met },
    };
    log(
      `  ${PEER_LABEL[s]} (${peer.renderer}): ${(peer.bytesPerSec / 1e6).toFixed(1)} MB/s, ${(100 * peer.ratioToTmuxAlone).toFixed(0)} % of tmux alone (its pane ${(100 * peer.paneRatioToTmuxAlone).toFixed(0)} %); its xterm written ${(peer.medianWritten / 1e6).toFixed(1)} MB; cpu ms (medians) tmux ${peer.medianCpuMs.tmux}, WeTTY's server and its attach client ${peer.medianCpuMs.server} (the engine beside it ${peer.medianCpuMs.engine}), chromium ${peer.medianCpuMs.chromium}; the window's rate over it per rep ${ratios.map((x) => x.toFixed(2)).join(', ')}`,
    );
    verdicts.push(
      `${judged ? (met ? 'PASS' : 'FAIL') : 'NOT JUDGED'}  window vs ${PEER_LABEL[s]} ${ratio.toFixed(2)}x (target >= ${PEER_TARGET.toFixed(2)}x, median of ${paired.length} interleaved reps${judged ? '' : `, needs ${minReps}`}; ${atOrOver} of ${paired.length} at or over)`,
    );
  }
  for (const v of verdicts) log(v);
  return out;
}
