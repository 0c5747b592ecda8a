import { describe, expect, it } from 'vitest';
import { decodeFrame, encodeAck, encodeFrame, FRAME } from '../../src/shared/contract/app';
import {
  BATCH_MAX_BYTES,
  BATCH_MAX_DELAY_MS,
  FLOW_HIGH_WATERMARK,
  FLOW_LOW_WATERMARK,
  FlowControl,
  OutputBatcher,
  PtyHold,
  READ_GAP_MS,
  ReadGate,
  type Timers,
} from '../../src/main/terminal/flow';

/** Timers a test advances by hand. */
function fakeTimers(): Timers & { advance(ms: number): void; pending(): number } {
  let now = 0;
  let seq = 0;
  const due = new Map<number, { at: number; fn: () => void }>();
  return {
    set: (fn, ms) => (due.set(++seq, { at: now + ms, fn }), seq),
    clear: (h) => void due.delete(h as number),
    advance(ms) {
      now += ms;
      for (const [k, t] of [...due]) if (t.at <= now) due.delete(k), t.fn();
    },
    pending: () => due.size,
  };
}

describe('output batching', () => {
  it('bytes arrive whole and in order, one flush per 16 ms window', () => {
    const t = fakeTimers();
    const out: Uint8Array[] = [];
    const b = new OutputBatcher((x) => out.push(x), t);
    const chunks = Array.from({ length: 50 }, (_, i) => new TextEncoder().encode(`line ${i}\n`));
    for (const c of chunks) b.push(c);
    expect(out).toHaveLength(0);
    t.advance(BATCH_MAX_DELAY_MS - 1);
    expect(out).toHaveLength(0);
    t.advance(1);
    expect(out).toHaveLength(1);
    expect(new TextDecoder().decode(out[0])).toBe(chunks.map((c) => new TextDecoder().decode(c)).join(''));
    expect(t.pending()).toBe(0);
  });

  it('a batch never waits once it holds 200 KB', () => {
    const t = fakeTimers();
    const out: Uint8Array[] = [];
    const b = new OutputBatcher((x) => out.push(x), t);
    for (let i = 0; i < 5; i++) b.push(new Uint8Array(64 * 1024).fill(i));
    expect(out).toHaveLength(1);
    expect(out[0]!.length).toBeGreaterThanOrEqual(BATCH_MAX_BYTES);
    expect(out[0]![0]).toBe(0);
    t.advance(BATCH_MAX_DELAY_MS);
    expect(out).toHaveLength(2);
    expect(out.reduce((n, x) => n + x.length, 0)).toBe(5 * 64 * 1024);
  });
});

describe('flow control', () => {
  it('pauses above the high watermark and resumes only below the low one (no flapping)', () => {
    const log: string[] = [];
    const f = new FlowControl(
      () => log.push('pause'),
      () => log.push('resume'),
    );
    f.sent(FLOW_HIGH_WATERMARK);
    expect(log).toEqual([]);
    f.sent(1);
    expect(log).toEqual(['pause']);
    f.sent(50_000);
    expect(log).toEqual(['pause']);
    f.acked(FLOW_HIGH_WATERMARK + 50_001 - FLOW_LOW_WATERMARK);
    expect(log).toEqual(['pause']);
    f.acked(1);
    expect(log).toEqual(['pause', 'resume']);
    expect(f.state).toEqual({ unacked: FLOW_LOW_WATERMARK - 1, paused: false, resumes: 1 });
  });

  it('acks for more than was sent, or negative acks, cannot push the count below zero', () => {
    const f = new FlowControl(
      () => undefined,
      () => undefined,
    );
    f.acked(1e9);
    f.acked(-5);
    expect(f.state.unacked).toBe(0);
    f.sent(FLOW_HIGH_WATERMARK + 1);
    expect(f.state.paused).toBe(true);
  });
});

describe('read gate', () => {
  it('a read after a quiet spell goes through at once; reads in the next frame wait for it', () => {
    const t = fakeTimers();
    const log: boolean[] = [];
    const g = new ReadGate((held) => log.push(held), t);
    g.read();
    expect(log).toEqual([true]);
    g.read(); // data that was already on its way: still one hold, one timer
    expect(t.pending()).toBe(1);
    t.advance(READ_GAP_MS - 1);
    expect(log).toEqual([true]);
    t.advance(1);
    expect(log).toEqual([true, false]);
    g.read();
    expect(log).toEqual([true, false, true]);
    g.dispose();
    expect(t.pending()).toBe(0);
  });

  it('a gap of 0 never holds the pty (read as fast as it gives)', () => {
    const t = fakeTimers();
    const log: boolean[] = [];
    const g = new ReadGate((held) => log.push(held), t, 0);
    for (let i = 0; i < 5; i++) g.read();
    expect(log).toEqual([]);
    expect(t.pending()).toBe(0);
  });

  it('the pty is read again only when neither flow control nor the gate holds it', () => {
    const log: string[] = [];
    const h = new PtyHold(
      () => log.push('pause'),
      () => log.push('resume'),
    );
    h.set('gap', true);
    h.set('flow', true);
    expect(log).toEqual(['pause']);
    h.set('gap', false); // the frame passed, but the window is still behind
    expect(log).toEqual(['pause']);
    h.set('flow', false);
    expect(log).toEqual(['pause', 'resume']);
    h.set('flow', false); // a release without a hold changes nothing
    expect(log).toEqual(['pause', 'resume']);
  });
});

describe('terminal frames', () => {
  it('round-trip bytes exactly, and reject malformed headers', () => {
    const payload = new Uint8Array([0, 255, 27, 91, 109, 0xe2, 0x82, 0xac]);
    const f = decodeFrame(encodeFrame(FRAME.OUTPUT, 42, payload))!;
    expect(f.kind).toBe(FRAME.OUTPUT);
    expect(f.term).toBe(42);
    expect([...f.payload]).toEqual([...payload]);
    expect(decodeFrame(encodeAck(7, 123456))).toMatchObject({ kind: FRAME.ACK, term: 7, ack: 123456 });
    expect(decodeFrame(new Uint8Array([1, 0, 0]))).toBeUndefined();
    expect(decodeFrame(new Uint8Array([4, 0, 0, 0, 1]))).toBeUndefined();
    expect(decodeFrame(new Uint8Array([1, 0, 0, 0, 0]))).toBeUndefined();
    expect(decodeFrame(new Uint8Array([3, 0, 0, 0, 1, 1, 2]))).toBeUndefined();
  });
});
