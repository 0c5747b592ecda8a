/** Small fetch helpers for talking to the fake model server in tests. */

export interface SseEvent {
  event: string | undefined;
  data: string;
  /** `data` parsed as JSON, or undefined (e.g. `[DONE]`). */
  json: Record<string, unknown> | undefined;
  /** ms since the request was sent. */
  at: number;
}

export async function post(url: string, body: unknown, init: RequestInit = {}): Promise<Response> {
  return fetch(url, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify(body),
    ...init,
  });
}

function parseBlock(block: string, at: number): SseEvent | undefined {
  let event: string | undefined;
  const data: string[] = [];
  for (const line of block.split('\n')) {
    if (line.startsWith('event:')) event = line.slice(6).trim();
    else if (line.startsWith('data:')) data.push(line.slice(5).trimStart());
  }
  if (!event && data.length === 0) return undefined;
  const text = data.join('\n');
  let json: Record<string, unknown> | undefined;
  try {
    const v: unknown = JSON.parse(text);
    if (typeof v === 'object' && v !== null) json = v as Record<string, unknown>;
  } catch {
    json = undefined;
  }
  return { event, data: text, json, at };
}

/** Reads an SSE response to its end, stamping each event with its arrival time. */
export async function readSse(res: Response, startedAt = Date.now()): Promise<SseEvent[]> {
  const events: SseEvent[] = [];
  const reader = res.body!.getReader();
  const decoder = new TextDecoder();
  let buf = '';
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    buf += decoder.decode(value, { stream: true });
    let idx: number;
    while ((idx = buf.indexOf('\n\n')) >= 0) {
      const ev = parseBlock(buf.slice(0, idx), Date.now() - startedAt);
      buf = buf.slice(idx + 2);
      if (ev) events.push(ev);
    }
  }
  const tail = parseBlock(buf, Date.now() - startedAt);
  if (tail) events.push(tail);
  return events;
}

export async function postSse(url: string, body: unknown): Promise<{ res: Response; events: SseEvent[] }> {
  const startedAt = Date.now();
  const res = await post(url, body);
  return { res, events: await readSse(res, startedAt) };
}

/** Field access on parsed JSON without a cast at every step: get(obj, 'a', 0, 'b'). */
export function get(v: unknown, ...path: Array<string | number>): unknown {
  let cur: unknown = v;
  for (const k of path) {
    if (cur === null || typeof cur !== 'object') return undefined;
    cur = (cur as Record<string | number, unknown>)[k];
  }
  return cur;
}
