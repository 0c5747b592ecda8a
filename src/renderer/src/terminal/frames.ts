import { decodeFrame, FRAME } from '../../../shared/contract/app';
import type { Transport } from '../transport';

type Sink = (payload: Uint8Array) => void;

/**
 * Routes OUTPUT frames to their terminal. Output can arrive before the `terminal.open` answer
 * names the id, so frames for an id nobody claimed yet wait here (bounded) until it is claimed.
 */
export class FrameRouter {
  private readonly sinks = new Map<number, Sink>();
  private readonly early = new Map<number, Uint8Array[]>();
  constructor(transport: Transport) {
    transport.onFrame((bytes) => {
      const f = decodeFrame(bytes);
      if (!f || f.kind !== FRAME.OUTPUT) return;
      const sink = this.sinks.get(f.term);
      if (sink) return sink(f.payload);
      const q = this.early.get(f.term) ?? [];
      if (q.length < 64) q.push(f.payload.slice());
      this.early.set(f.term, q);
      if (this.early.size > 32) this.early.delete(this.early.keys().next().value!);
    });
  }
  claim(term: number, sink: Sink): () => void {
    this.sinks.set(term, sink);
    for (const p of this.early.get(term) ?? []) sink(p);
    this.early.delete(term);
    return () => void this.sinks.delete(term);
  }
}
