import {
  decodeFrame,
  FRAME,
  MAX_INPUT_FRAME,
  MAX_TEXT_MESSAGE,
  WINDOW_REFUSED,
  WINDOW_REQUESTS,
  windowMessage,
  type PushMessage,
  type WindowMethod,
} from '../../shared/contract/app';
import type { z } from 'zod';
import { type ClientResult, DEVICE_REFUSED, REQUESTS } from '../../shared/contract';
import type { DeviceSeen } from '../engine/devices/pairing';
import { fail, type Result } from '../../shared/errors';
import { dispatch, isMethod } from '../engine/api';
import type { Engine } from '../engine/engine';
import type { TerminalHub } from '../terminal/hub';
import type { PushHub } from './pushes';

export interface WindowHubContext {
  engine: Engine;
  terminals: TerminalHub;
  pushes: PushHub;
}

/** How a transport delivers to its window: JSON-able objects and binary frames. */
export interface ConnectionSink {
  message(msg: { id: number | null; result: Result<Record<string, unknown>> } | PushMessage): void;
  frame(bytes: Uint8Array): void;
}

const isWindowMethod = (m: string): m is WindowMethod => Object.hasOwn(WINDOW_REQUESTS, m);

/** Requests that record who made them (a `by` field): a device's connection fills it in itself. */
const RECORDS_BY: ReadonlySet<string> = new Set(
  Object.entries(REQUESTS)
    .filter(([, schema]) => 'shape' in schema && Object.hasOwn(schema.shape, 'by'))
    .map(([m]) => m),
);

/** Who is at the other end: this machine's window, or a paired device (`rigdesk serve --listen`). */
export interface ConnectionWho {
  device?: DeviceSeen;
}

/** How a device's answers and sends are recorded: its name and id (at most 100 characters). */
export const deviceLabel = (d: DeviceSeen): string => `device ${d.name} (${d.id})`.slice(0, 100);

/**
 * One window's connection, the same for Electron IPC and the WebSocket: every message is checked
 * against the contract before anything runs; malformed ones get an error answer (data, never a
 * throw) and change nothing. Terminals opened here belong to this connection alone.
 */
export class WindowConnection {
  private readonly unsubscribe: () => void;
  private closed = false;

  constructor(
    private readonly ctx: WindowHubContext,
    private readonly sink: ConnectionSink,
    private readonly who: ConnectionWho = {},
  ) {
    this.unsubscribe = ctx.pushes.subscribe((m) => this.sink.message(m));
  }

  /** A text message from the WebSocket: JSON first, then the same path as IPC. */
  async text(raw: string): Promise<void> {
    if (raw.length > MAX_TEXT_MESSAGE)
      return this.answer(
        null,
        fail('BAD_USAGE', `message too large (${raw.length} characters; at most ${MAX_TEXT_MESSAGE})`),
      );
    let msg: unknown;
    try {
      msg = JSON.parse(raw);
    } catch {
      return this.answer(null, fail('BAD_USAGE', 'message is not JSON'));
    }
    await this.request(msg);
  }

  async request(msg: unknown): Promise<void> {
    const a = await this.answerFor(msg);
    this.answer(a.id, a.result);
  }

  /** The answer to one message, returned rather than sent (Electron's invoke/handle returns it). */
  async answerFor(msg: unknown): Promise<{ id: number | null; result: Result<Record<string, unknown>> }> {
    const m = windowMessage.safeParse(msg);
    if (!m.success) {
      const id = typeof (msg as { id?: unknown })?.id === 'number' ? (msg as { id: number }).id : null;
      return { id, result: fail('BAD_USAGE', 'message must be {id, method, params}') };
    }
    const { id, method, params } = m.data;
    return { id, result: await this.run(method, params) };
  }

  /** A binary frame: input or an ack for one of this connection's terminals; anything else is dropped. */
  frame(bytes: Uint8Array): void {
    if (this.closed || bytes.length > MAX_INPUT_FRAME + 5) return;
    const f = decodeFrame(bytes);
    if (!f) return;
    if (f.kind === FRAME.INPUT) this.ctx.terminals.input(this, f.term, f.payload);
    else if (f.kind === FRAME.ACK) this.ctx.terminals.ack(this, f.term, f.ack ?? 0);
  }

  close(): void {
    if (this.closed) return;
    this.closed = true;
    this.unsubscribe();
    this.ctx.pushes.watching.delete(this);
    this.ctx.terminals.closeAll(this);
  }

  private async run(method: string, params: unknown): Promise<Result<Record<string, unknown>>> {
    if (this.closed) return fail('BAD_USAGE', 'connection closed');
    if (isWindowMethod(method)) return this.window(method, params);
    if (WINDOW_REFUSED.has(method))
      return fail('BAD_USAGE', `${method} is not available to a window; use the rigdesk command or the app's menu`);
    const device = this.who.device;
    if (device && DEVICE_REFUSED.has(method))
      return fail('DEVICE_FORBIDDEN', `${method} is not available to a paired device`, {
        hint: 'Pair and revoke devices from the window or the rigdesk command on the machine that runs Rigdesk.',
      });
    if (!isMethod(method)) return fail('BAD_USAGE', `unknown method ${JSON.stringify(method).slice(0, 80)}`);
    // What a device does is recorded as that device's, whatever it says it is.
    if (device && RECORDS_BY.has(method) && typeof params === 'object' && params !== null && !Array.isArray(params))
      return dispatch(this.ctx.engine, method, { ...params, by: deviceLabel(device) });
    return dispatch(this.ctx.engine, method, params);
  }

  private async window<M extends WindowMethod>(method: M, params: unknown): Promise<Result<Record<string, unknown>>> {
    const parsed = WINDOW_SCHEMAS[method].safeParse(params ?? {});
    if (!parsed.success) {
      const issue = parsed.error.issues[0];
      return fail(
        'BAD_USAGE',
        `bad parameters for ${method}: ${issue ? `${issue.path.join('.') || '(root)'}: ${issue.message}` : 'invalid'}`,
      );
    }
    try {
      return await this.handlers[method](parsed.data);
    } catch (e) {
      return fail('INTERNAL', `${method} failed: ${(e as Error).message}`);
    }
  }

  /** One handler per window request, typed by its request's schema and its answer's. */
  private readonly handlers: WindowHandlers = {
    'terminal.open': async (p) => {
      const r = await this.ctx.terminals.open(this, p.seat, p.cols, p.rows, {
        frame: (b) => this.sink.frame(b),
        exit: (term, reason) => this.sink.message({ push: 'terminal.exit', data: { term, reason } }),
      });
      return r.ok ? { ok: true, term: r.term, seat: r.seat } : r;
    },
    'terminal.resize': async (p) => {
      const r = await this.ctx.terminals.resize(this, p.term, p.cols, p.rows);
      return r.ok ? { ok: true, term: p.term, cols: p.cols, rows: p.rows } : r;
    },
    'terminal.close': async (p) => {
      const r = this.ctx.terminals.close(this, p.term);
      return r.ok ? { ok: true, term: p.term } : r;
    },
    'window.attention': async (p) => {
      this.ctx.pushes.watching.set(this, p);
      return { ok: true, watched: this.ctx.pushes.watching.size };
    },
  };

  private answer(id: number | null, result: Result<Record<string, unknown>>): void {
    if (!this.closed) this.sink.message({ id, result });
  }
}

type WindowRequest<M extends WindowMethod> = z.output<(typeof WINDOW_REQUESTS)[M]>;
type WindowHandlers = { [M in WindowMethod]: (p: WindowRequest<M>) => Promise<ClientResult<M>> };
/** Indexed so that a generic method name keeps its own params' type. */
const WINDOW_SCHEMAS: { [M in WindowMethod]: z.ZodType<WindowRequest<M>> } = WINDOW_REQUESTS;
