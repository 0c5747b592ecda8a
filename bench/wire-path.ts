import type { Page } from 'playwright-core';

/**
 * Where a page load's time goes on the wire, in ms from just before navigation (this process's
 * clock): the page's script loaded, its WebSocket opened, each request's first answer and the first
 * push of each kind. Read beside the paint: what the page waited on, and for how long.
 */
export function watchWire(page: Page): { start(): void; marks(): Record<string, number> } {
  let t0 = Date.now();
  const marks: Record<string, number> = {};
  const mark = (what: string) => {
    if (marks[what] === undefined) marks[what] = Date.now() - t0;
  };
  const asked = new Map<number, string>();
  page.on('response', (r) => {
    if (/\/assets\/index-[\w-]+\.js$/.test(new URL(r.url()).pathname)) mark('script answered');
  });
  page.on('websocket', (ws) => {
    mark('socket created');
    ws.on('framesent', (f) => {
      const m = parse(f.payload);
      if (typeof m?.id === 'number' && typeof m.method === 'string') {
        asked.set(m.id, m.method);
        mark(`asked ${m.method}`);
      }
    });
    ws.on('framereceived', (f) => {
      const m = parse(f.payload);
      if (typeof m?.push === 'string') mark(`push ${m.push}`);
      else if (typeof m?.id === 'number' && asked.has(m.id)) mark(`answer ${asked.get(m.id)}`);
    });
  });
  return {
    start: () => {
      t0 = Date.now();
      for (const k of Object.keys(marks)) delete marks[k];
    },
    marks: () => ({ ...marks }),
  };
}

function parse(payload: string | Buffer): { id?: unknown; method?: unknown; push?: unknown } | undefined {
  if (typeof payload !== 'string') return undefined;
  try {
    return JSON.parse(payload) as { id?: unknown; method?: unknown; push?: unknown };
  } catch {
    return undefined;
  }
}
