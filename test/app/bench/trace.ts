import type { Page } from 'playwright-core';

/** One trace event as Chromium reports it (only the fields read here). */
interface TraceEvent {
  name: string;
  ph: string;
  dur?: number;
  args?: { data?: Record<string, unknown>; beginData?: Record<string, unknown> };
}
type Frame = { functionName: string; lineNumber: number };

const CATEGORIES = [
  'devtools.timeline',
  'blink',
  'cc',
  'disabled-by-default-devtools.timeline',
  'disabled-by-default-devtools.timeline.stack',
];

/** Chromium's protocol types a trace event's values as strings; they are numbers and objects. */
function asEvent(v: Record<string, unknown>): TraceEvent {
  const args = typeof v.args === 'object' && v.args ? (v.args as TraceEvent['args']) : undefined;
  return { name: String(v.name), ph: String(v.ph), dur: typeof v.dur === 'number' ? v.dur : undefined, args };
}

/** Events summed by name, most frequent first, as "name count ms". */
function byName(events: TraceEvent[], n = 25): string {
  const by = new Map<string, { n: number; ms: number }>();
  for (const e of events) {
    if (!['X', 'B', 'I', 'i'].includes(e.ph)) continue;
    const b = by.get(e.name) ?? { n: 0, ms: 0 };
    b.n++;
    b.ms += (e.dur ?? 0) / 1000;
    by.set(e.name, b);
  }
  return [...by]
    .sort((a, b) => b[1].n - a[1].n)
    .slice(0, n)
    .map(([k, b]) => `${k} ${b.n} ${b.ms.toFixed(1)}`)
    .join('; ');
}

/** Script calls, timers, events and work with a script stack (a forced layout), counted by where. */
function byScript(events: TraceEvent[], n = 20): string {
  const calls = new Map<string, number>();
  for (const e of events) {
    const d = e.args?.data ?? e.args?.beginData;
    if (!d) continue;
    const stack = (d.stackTrace as Frame[] | undefined)?.slice(0, 3);
    if (!stack && !['FunctionCall', 'TimerFire', 'EventDispatch'].includes(e.name)) continue;
    const at = `${String(d.url ?? '')
      .split('/')
      .pop()}:${d.lineNumber ?? ''}`;
    const from = stack ? ` <${stack.map((f) => `${f.functionName}:${f.lineNumber}`).join('<')}` : '';
    const k = `${e.name}:${String(d.type ?? '')}${String(d.functionName ?? '')}@${at}${from}`;
    calls.set(k, (calls.get(k) ?? 0) + 1);
  }
  return [...calls]
    .sort((a, b) => b[1] - a[1])
    .slice(0, n)
    .map(([k, c]) => `${k} x${c}`)
    .join('\n    ');
}

/**
 * Chromium's own trace of one page from now until the returned function is called, with the page's
 * WebSocket frames counted by push: where a renderer's time goes when no script shows in a CPU
 * profile (frames, style, layout, paint, a caret's blink). Tracing costs CPU itself.
 */
export async function traceIdle(page: Page): Promise<() => Promise<string>> {
  const cdp = await page.context().newCDPSession(page);
  const events: TraceEvent[] = [];
  const ws = new Map<string, number>();
  cdp.on('Tracing.dataCollected', (m) => events.push(...m.value.map(asEvent)));
  await cdp.send('Network.enable');
  cdp.on('Network.webSocketFrameReceived', ({ response: r }) => {
    const k = /"push":"([^"]+)"/.exec(r.payloadData)?.[1] ?? (r.opcode === 2 ? 'binary' : 'other');
    ws.set(k, (ws.get(k) ?? 0) + 1);
  });
  await cdp.send('Tracing.start', { traceConfig: { includedCategories: CATEGORIES } });
  return async () => {
    const done = new Promise<void>((r) => cdp.once('Tracing.tracingComplete', () => r()));
    await cdp.send('Tracing.end');
    await done;
    await cdp.detach();
    return [
      `  events (count, ms): ${byName(events)}`,
      `  websocket frames: ${JSON.stringify(Object.fromEntries(ws))}`,
      `  scripts:\n    ${byScript(events)}`,
    ].join('\n');
  };
}
