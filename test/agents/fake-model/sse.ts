import type { ServerResponse } from 'node:http';
import { setTimeout as sleep } from 'node:timers/promises';

/**
 * One response being written: SSE events or a JSON body, with sleeps that stop at once when the
 * client goes away or the server closes (the signal aborts, the sleep throws, the handler ends).
 */
export class ReplyWriter {
  constructor(
    readonly res: ServerResponse,
    readonly signal: AbortSignal,
  ) {}

  get aborted(): boolean {
    return this.signal.aborted || this.res.destroyed;
  }

  /** Sends the SSE status line and headers now, before any event. */
  openStream(): void {
    this.res.writeHead(200, {
      'content-type': 'text/event-stream; charset=utf-8',
      'cache-control': 'no-cache',
      connection: 'keep-alive',
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
