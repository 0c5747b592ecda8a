import { mkdirSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import { join, resolve } from 'node:path';
import { performance } from 'node:perf_hooks';
import { Terminal } from '@xterm/headless';
import { expect, it } from 'vitest';
import { waitFor } from '../test/support/tmux';
import { chromiumMissing, launchChromium } from '../test/app/chromium';
import { appWorld } from '../test/app/helpers';

/**
 * Terminal throughput (issue 3): `seq` flooding a real pane to the browser's xterm (through node-pty,
 * the serve host's batching and flow control, the WebSocket and xterm's parser, acks included),
 * against @xterm/headless fed the same kind of bytes directly (the parser's own limit).
 * Not yet measured here: renderer heap with 1/8/32 seats open (the window opens one seat at a time).
 *
 * Run: npm run bench:terminal   Env: RDBENCH_LINES=1000000
 */
const LINES = Number(process.env.RDBENCH_LINES ?? 1_000_000);
const RESULTS_DIR = resolve(__dirname, 'results');

function seqBytes(n: number): Buffer {
  const parts: string[] = [];
  for (let i = 1; i <= n; i++) parts.push(String(i));
  return Buffer.from(parts.join('\r\n') + '\r\n');
}

async function headlessRate(bytes: Buffer): Promise<number> {
  const t = new Terminal({ cols: 120, rows: 40, allowProposedApi: true });
  const start = performance.now();
  const CHUNK = 64 * 1024;
  for (let off = 0; off < bytes.length; off += CHUNK) t.write(bytes.subarray(off, off + CHUNK));
  await new Promise<void>((r) => t.write('', () => r()));
  const s = (performance.now() - start) / 1000;
  t.dispose();
  return bytes.length / s;
}

it(`terminal: seq 1..${LINES} pane → browser xterm vs @xterm/headless`, async () => {
  const bytes = seqBytes(LINES);
  const headless = await headlessRate(bytes);
  log(`headless xterm parse: ${(headless / 1e6).toFixed(1)} MB/s over ${(bytes.length / 1e6).toFixed(1)} MB`);

  const missing = chromiumMissing();
  let browserRate: number | undefined;
  if (!missing) {
    const w = await appWorld('bench', ['flood']);
    const chrome = await launchChromium();
    try {
      const page = chrome.browser.pages()[0] ?? (await chrome.browser.newPage());
      await page.goto(`${w.serve.url}#/seat/flood%40bench`);
      await page.getByTestId('terminal-status').filter({ hasText: 'live' }).waitFor({ timeout: 20_000 });
      const pane = w.engine.store.sessions.live('flood@bench')!.paneId;
      await waitFor(() => /[$#] ?$/m.test(w.world.tmux.capture(pane).trimEnd()), { what: 'prompt' });
      const start = performance.now();
      w.world.tmux.run(['send-keys', '-t', pane, '-l', `seq 1 ${LINES}; echo bench-$((1+1))-done`]);
      w.world.tmux.run(['send-keys', '-t', pane, 'Enter']);
      await waitFor(async () => /^bench-2-done$/m.test(await page.evaluate(() => window.__rigdeskScreens?.['flood@bench']?.text() ?? '')), { what: 'flood end in browser', timeoutMs: 600_000, intervalMs: 20 });
      const s = (performance.now() - start) / 1000;
      browserRate = bytes.length / s;
      log(`pane → browser xterm: ${(browserRate / 1e6).toFixed(1)} MB/s of pane output (${s.toFixed(2)} s for ${(bytes.length / 1e6).toFixed(1)} MB); ${(100 * browserRate / headless).toFixed(0)} % of headless`);
      log('note: tmux redraws an attach client from its own screen, so a fast flood reaches the browser as screen updates, not every byte; the rate is pane bytes over wall time to the last line');
    } finally {
      await chrome.close();
      await w.cleanup();
    }
  }
  mkdirSync(RESULTS_DIR, { recursive: true });
  const out = join(RESULTS_DIR, `terminal-${new Date().toISOString().replace(/:/g, '-').replace(/\.\d+Z$/, 'Z')}.json`);
  writeFileSync(out, JSON.stringify({ lines: LINES, bytes: bytes.length, headlessBytesPerSec: headless, browserBytesPerSec: browserRate, ratio: browserRate ? browserRate / headless : undefined, skippedBrowser: missing, machine: { cpu: os.cpus()[0]?.model, cores: os.cpus().length, node: process.version, loadavg: os.loadavg() } }, null, 2));
  log(`wrote ${out}`);
  expect(headless).toBeGreaterThan(0);
});

function log(s: string): void {
  process.stdout.write(`${s}\n`);
}
