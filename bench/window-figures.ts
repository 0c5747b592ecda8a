import { mkdirSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import { join, resolve } from 'node:path';
import type { Page } from 'playwright-core';
import { machineFacts } from './machine';

/** What bench/window and bench/window-200 share: percentiles, verdicts, their results file, frames in the page. */

export const RESULTS_DIR = resolve(__dirname, 'results');
export const log = (s: string) => process.stdout.write(`${s}\n`);
export const pct = (xs: number[], p: number) => {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.ceil((p / 100) * s.length) - 1)] ?? Number.NaN;
};
export const verdict = (ok: boolean) => (ok ? 'PASS' : 'FAIL');
export const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
/** The machine as the bench found it (its load average then); the load at the end is written beside it. */
const START = machineFacts();

/** `bench/results/<name>-<ISO date>.json` with the figures, the machine and the date; returns its path. */
export function writeResults(name: string, results: Record<string, unknown>): string {
  mkdirSync(RESULTS_DIR, { recursive: true });
  const stamp = new Date()
    .toISOString()
    .replace(/:/g, '-')
    .replace(/\.\d+Z$/, 'Z');
  const out = join(RESULTS_DIR, `${name}-${stamp}.json`);
  writeFileSync(
    out,
    JSON.stringify(
      { ...results, machine: { ...START, loadavgAtEnd: os.loadavg() }, date: new Date().toISOString() },
      null,
      2,
    ),
  );
  log(`wrote ${out}`);
  return out;
}

declare global {
  interface Window {
    /** The frame and long-task recorder a bench arms in the page (`framesDuring`). */
    __frames?: { stop(): { frames: number[]; longTasks: number[]; ms: number } };
  }
}

export interface Frames {
  /** How long the gesture took, in the page's clock. */
  ms: number;
  /** Frames drawn (animation-frame callbacks) over it. */
  frames: number;
  /** Frames a 60 Hz display would have shown that were not drawn (an interval of 2 vsyncs drops 1). */
  dropped: number;
  /** The longest interval between two frames. */
  worstFrameMs: number;
  /** Tasks of 50 ms or more on the page's main thread (PerformanceObserver 'longtask'), their durations. */
  longTasks: number[];
}

/**
 * Runs `gesture` while the page records each animation frame and every long task: what a person
 * sees as a smooth or a janky scroll, pan or zoom.
 */
export async function framesDuring(page: Page, gesture: () => Promise<void>): Promise<Frames> {
  await page.evaluate(() => {
    const frames: number[] = [];
    const longTasks: number[] = [];
    const po = new PerformanceObserver((l) => {
      for (const e of l.getEntries()) longTasks.push(e.duration);
    });
    po.observe({ type: 'longtask' });
    let on = true;
    const t0 = performance.now();
    const tick = (t: number) => {
      frames.push(t);
      if (on) requestAnimationFrame(tick);
    };
    requestAnimationFrame(tick);
    window.__frames = {
      stop: () => {
        on = false;
        for (const e of po.takeRecords()) longTasks.push(e.duration);
        po.disconnect();
        return { frames, longTasks, ms: performance.now() - t0 };
      },
    };
  });
  await gesture();
  // One more frame, so the gesture's last step is drawn and any long task it caused is reported.
  await page.evaluate(() => new Promise((r) => requestAnimationFrame(() => setTimeout(r, 60))));
  const r = await page.evaluate(() => window.__frames!.stop());
  const gaps = r.frames.slice(1).map((t, i) => t - r.frames[i]!);
  const vsync = 1000 / 60;
  return {
    ms: r.ms,
    frames: r.frames.length,
    dropped: gaps.reduce((n, g) => n + Math.max(0, Math.round(g / vsync) - 1), 0),
    worstFrameMs: Math.max(0, ...gaps),
    longTasks: r.longTasks,
  };
}

/** RDBENCH_PROFILE: the renderer's functions with the most self time in a CPU profile, as "name (url:line) ms". */
export function topFunctions(profile: {
  nodes: { id: number; callFrame: { functionName: string; url: string; lineNumber: number } }[];
  samples?: number[];
  timeDeltas?: number[];
}): string {
  const self = new Map<number, number>();
  for (const [i, id] of (profile.samples ?? []).entries())
    self.set(id, (self.get(id) ?? 0) + (profile.timeDeltas?.[i] ?? 0) / 1000);
  return profile.nodes
    .map((n) => ({ n, ms: self.get(n.id) ?? 0 }))
    .filter((x) => !/^\((idle|program|root)\)$/.test(x.n.callFrame.functionName))
    .sort((a, b) => b.ms - a.ms)
    .slice(0, 12)
    .map(
      (x) =>
        `${x.n.callFrame.functionName || '(anon)'} (${x.n.callFrame.url.split('/').pop()}:${x.n.callFrame.lineNumber}) ${x.ms.toFixed(1)}`,
    )
    .join('; ');
}

/** `RDBENCH_PROFILE=topology,scroll,…`: the parts of a run whose CPU profile is printed (profiling costs CPU itself). */
const PROFILE = new Set((process.env.RDBENCH_PROFILE ?? '').split(',').filter(Boolean));

/** Runs `fn`; when `what` is asked for in RDBENCH_PROFILE, with the renderer's CPU profiler on, and prints its top functions. */
export async function profiled<T>(page: Page, what: string, fn: () => Promise<T>): Promise<T> {
  if (!PROFILE.has(what)) return fn();
  const cdp = await page.context().newCDPSession(page);
  await cdp.send('Profiler.enable');
  await cdp.send('Profiler.setSamplingInterval', { interval: 200 });
  await cdp.send('Profiler.start');
  try {
    return await fn();
  } finally {
    const { profile } = await cdp.send('Profiler.stop');
    const file = join(os.tmpdir(), `renderer-${what}-${process.pid}.cpuprofile`);
    writeFileSync(file, JSON.stringify(profile));
    log(`  renderer profile of ${what} (${file}), top self time (ms): ${topFunctions(profile)}`);
    await cdp.detach();
  }
}

/** Trace events whose time `traced` sums: the renderer main thread's script, style, layout and paint. */
const TRACED = [
  'FunctionCall',
  'TimerFire',
  'EventDispatch',
  'UpdateLayoutTree',
  'Layout',
  'PrePaint',
  'Paint',
  'Layerize',
  'MinorGC',
  'MajorGC',
];

type TraceEv = { name: string; ph: string; dur?: number; pid: number; tid: number; args?: { name?: string } };
const isEv = (x: unknown): x is TraceEv =>
  typeof x === 'object' && x !== null && 'name' in x && 'ph' in x && 'pid' in x && 'tid' in x;

/**
 * Runs `fn`; when `trace:<what>` is in RDBENCH_PROFILE, under Chromium's timeline trace, and prints
 * the renderer main thread's time by kind (script, style, layout, paint): the CPU profile shows
 * only script, and a view's first drawing is mostly the rest. Kinds can nest (a forced layout inside
 * a script call), so the figures say where time went, not a sum.
 */
export async function traced<T>(page: Page, what: string, fn: () => Promise<T>): Promise<T> {
  if (!PROFILE.has(`trace:${what}`)) return fn();
  const cdp = await page.context().newCDPSession(page);
  const events: TraceEv[] = [];
  // CDP types each event as a map of strings; they are JSON objects with numbers in them.
  cdp.on('Tracing.dataCollected', (d) => {
    for (const raw of d.value as unknown[]) if (isEv(raw)) events.push(raw);
  });
  const done = new Promise<void>((ok) => cdp.once('Tracing.tracingComplete', () => ok()));
  await cdp.send('Tracing.start', {
    traceConfig: { includedCategories: ['devtools.timeline', 'disabled-by-default-devtools.timeline', 'v8'] },
    transferMode: 'ReportEvents',
  });
  try {
    return await fn();
  } finally {
    await cdp.send('Tracing.end');
    await done;
    await cdp.detach();
    const main = events.find((e) => e.name === 'thread_name' && e.args?.name === 'CrRendererMain');
    const by = new Map<string, number>();
    for (const e of events)
      if (e.ph === 'X' && TRACED.includes(e.name) && (!main || (e.pid === main.pid && e.tid === main.tid)))
        by.set(e.name, (by.get(e.name) ?? 0) + (e.dur ?? 0) / 1000);
    log(
      `  renderer trace of ${what}, main thread ms by kind: ${[...by]
        .sort((a, b) => b[1] - a[1])
        .map(([k, ms]) => `${k} ${ms.toFixed(1)}`)
        .join('; ')}`,
    );
  }
}

/** The same for this process (the engine and its serve host): Node's own profiler. */
export async function profiledHere<T>(what: string, fn: () => Promise<T>): Promise<T> {
  if (!PROFILE.has(what)) return fn();
  const { Session } = await import('node:inspector/promises');
  const s = new Session();
  s.connect();
  await s.post('Profiler.enable');
  await s.post('Profiler.start');
  try {
    return await fn();
  } finally {
    const { profile } = await s.post('Profiler.stop');
    const file = join(os.tmpdir(), `engine-${what}-${process.pid}.cpuprofile`);
    writeFileSync(file, JSON.stringify(profile));
    log(`  engine profile of ${what} (${file}), top self time (ms): ${topFunctions(profile)}`);
    s.disconnect();
  }
}
