import type { ServerResponse } from 'node:http';
import { setTimeout as sleep } from 'node:timers/promises';
import type { Gate } from './gate';

/** What the pacing of a streamed text reply needs to know. */
interface Paced {
  chunks: string[];
  chunkDelayMs: number;
  held?: 'first' | 'last';
}

/**
 * One response being written: SSE events or a JSON body, with sleeps that stop at once when the
 * client goes away or the server closes (the signal aborts, the sleep throws, the handler ends).
 */
export class ReplyWriter {
  constructor(
    readonly res: ServerResponse,
    readonly signal: AbortSignal,
    readonly gate?: Gate,
  ) {}

  get aborted(): boolean {
    return this.signal.aborted || this.res.destroyed;
  }

  /** Sends the SSE status line and headers now, before any event. */
  openStream(headers: Record<string, string> = {}): void {
    this.res.writeHead(200, {
      'content-type': 'text/event-stream; charset=utf-8',
      'cache-control': 'no-cache',
      connection: 'keep-alive',
      ...headers,
    });
    this.res.flushHeaders();
  }

  /** `event: <name>` (when given) plus `data: <json or raw string>`. */
  event(name: string | undefined, data: unknown): void {
    if (this.aborted) return;
    const payload = typeof data === 'string' ? data : JSON.stringify(data);
    this.res.write(`${name ? `event: ${name}\n` : ''}data: ${payload}\n\n`);
  }

  async pause(ms: number): Promise<void> {
    if (ms <= 0) return;
    await sleep(ms, undefined, { signal: this.signal });
  }

  /** Before chunk `i`: the pause between chunks, and at a held reply's held chunk, the gate. */
  async beforeChunk(reply: Paced, i: number): Promise<void> {
    if (i > 0) await this.pause(reply.chunkDelayMs);
    const heldAt = reply.held === 'first' ? 0 : reply.chunks.length - 1;
    if (reply.held && i === heldAt && this.gate) await this.gate.passed(this.signal);
  }

  /** A reply sent whole (not streamed) takes as long as its stream would have. */
  async wholeReply(reply: Paced): Promise<void> {
    await this.pause(reply.chunkDelayMs * (reply.chunks.length - 1));
    if (reply.held && this.gate) await this.gate.passed(this.signal);
  }

  end(): void {
    if (!this.res.writableEnded && !this.res.destroyed) this.res.end();
  }

  json(status: number, body: unknown, headers: Record<string, string> = {}): void {
    if (this.aborted) return;
    const text = JSON.stringify(body);
    this.res.writeHead(status, {
      'content-type': 'application/json',
      'content-length': Buffer.byteLength(text),
      ...headers,
    });
    this.res.end(text);
  }
}
