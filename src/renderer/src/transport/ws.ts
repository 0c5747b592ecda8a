import type { PushMessage } from '../../../shared/contract/app';
import { answerFromWire, pushFromWire } from '../../../shared/contract/wire';
import { fail } from '../../../shared/errors';
import type { Transport } from './types';

/** Browser mode: the same contract over `ws://<host>/ws?token=…` (token from the page URL). */
export function wsTransport(loc: Location): Transport {
  const token = new URLSearchParams(loc.search).get('token') ?? '';
  const ws = new WebSocket(
    `${loc.protocol === 'https:' ? 'wss' : 'ws'}://${loc.host}/ws?token=${encodeURIComponent(token)}`,
  );
  ws.binaryType = 'arraybuffer';
  let nextId = 1;
  const pending = new Map<number, (raw: unknown) => void>();
  const pushes = new Set<(m: PushMessage) => void>();
  const frames = new Set<(b: Uint8Array) => void>();
  const statuses = new Set<(s: 'connecting' | 'open' | 'closed') => void>();
  const queue: string[] = [];
  let status: 'connecting' | 'open' | 'closed' = 'connecting';
  const setStatus = (s: typeof status) => {
    status = s;
    for (const f of statuses) f(s);
  };

  ws.onopen = () => {
    setStatus('open');
    for (const m of queue.splice(0)) ws.send(m);
  };
  ws.onclose = () => {
    setStatus('closed');
    for (const [, done] of pending) done(fail('ENGINE_UNREACHABLE', 'the connection to rigdesk serve closed'));
    pending.clear();
  };
  ws.onmessage = (ev) => {
    if (ev.data instanceof ArrayBuffer) {
      const b = new Uint8Array(ev.data);
      for (const f of frames) f(b);
      return;
    }
    let m: { id?: unknown; result?: unknown };
    try {
      m = JSON.parse(String(ev.data));
    } catch {
      return;
    }
    const push = pushFromWire(m);
    if (push) for (const f of pushes) f(push);
    else if (typeof m.id === 'number' && pending.has(m.id)) {
      pending.get(m.id)?.(m.result);
      pending.delete(m.id);
    }
  };

  return {
    kind: 'ws',
    request: (method, params) =>
      new Promise((resolve) => {
        if (status === 'closed') return resolve(fail('ENGINE_UNREACHABLE', 'not connected to rigdesk serve'));
        const id = nextId++;
        pending.set(id, (raw) => resolve(answerFromWire(method, raw)));
        const msg = JSON.stringify({ id, method, params });
        if (status === 'open') ws.send(msg);
        else queue.push(msg);
      }),
    onPush: (fn) => (pushes.add(fn), () => void pushes.delete(fn)),
    sendFrame: (b) => {
      if (ws.readyState === WebSocket.OPEN) ws.send(b);
    },
    onFrame: (fn) => (frames.add(fn), () => void frames.delete(fn)),
    onStatus: (fn) => (statuses.add(fn), fn(status), () => void statuses.delete(fn)),
  };
}
