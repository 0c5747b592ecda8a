import { describe, expect, it } from 'vitest';
import { PACE, WritePacer } from '../../src/renderer/src/terminal/pacer';

/** A clock and timers a test moves by hand. */
function clock() {
  let now = 0;
  let seq = 0;
  const due = new Map<number, { at: number; fn: () => void }>();
  return {
    now: () => now,
    timers: {
      set: (fn: () => void, ms: number) => (due.set(++seq, { at: now + ms, fn }), seq),
      clear: (h: unknown) => void due.delete(h as number),
    },
    advance(ms: number) {
      const end = now + ms;
      for (;;) {
        const next = [...due].filter(([, t]) => t.at <= end).sort((a, b) => a[1].at - b[1].at)[0];
        if (!next) break;
        now = next[1].at;
        due.delete(next[0]);
        next[1].fn();
      }
      now = end;
    },
  };
}

function pacer() {
  const c = clock();
  const writes: { at: number; bytes: number }[] = [];
  let acked = 0;
  const p = new WritePacer(
    (d, parsed) => (writes.push({ at: c.now(), bytes: d.length }), parsed()),
    (n) => (acked += n),
    PACE,
    c.now,
    c.timers,
  );
  return { c, p, writes, acked: () => acked };
}

describe('write pacing in the window', () => {
  it('a chunk after a quiet spell is written at once, so typing keeps its latency', () => {
    const { c, p, writes } = pacer();
    p.push(new Uint8Array(1));
    expect(writes).toEqual([{ at: 0, bytes: 1 }]);
    c.advance(1000);
    p.push(new Uint8Array(3));
    expect(writes).toHaveLength(2);
  });

  it('a stream is merged to one write per 33 ms, then one per 100 ms once it has run 500 ms; every byte is acked once', () => {
    const { c, p, writes, acked } = pacer();
    let sent = 0;
    // A chunk every 4 ms for 2 s, as the host's batches arrive during a flood.
    for (let t = 0; t < 2000; t += 4) {
      p.push(new Uint8Array(100));
      sent += 100;
      c.advance(4);
    }
    c.advance(200);
    const gaps = writes.slice(1).map((w, i) => w.at - writes[i]!.at);
    const early = gaps.filter((_, i) => writes[i + 1]!.at < PACE.floodAfterMs);
    const late = gaps.filter((_, i) => writes[i]!.at > PACE.floodAfterMs + PACE.floodGapMs);
    expect(Math.min(...early)).toBeGreaterThanOrEqual(PACE.gapMs);
    expect(Math.max(...early)).toBeLessThan(PACE.floodGapMs);
    expect(Math.min(...late)).toBeGreaterThanOrEqual(PACE.floodGapMs);
    expect(writes.length).toBeLessThan(2000 / PACE.gapMs);
    expect(writes.reduce((n, w) => n + w.bytes, 0)).toBe(sent);
    expect(acked()).toBe(sent);
    // After the stream stops, the next keystroke's echo goes at once again.
    c.advance(PACE.quietMs + 1);
    const n = writes.length;
    p.push(new Uint8Array(1));
    expect(writes).toHaveLength(n + 1);
  });

  it('closing the terminal drops what was queued and cancels the timer', () => {
    const { c, p, writes } = pacer();
    p.push(new Uint8Array(1));
    p.push(new Uint8Array(1));
    p.dispose();
    c.advance(1000);
    expect(writes).toHaveLength(1);
  });
});
