import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Engine } from '../../src/main/engine/engine';
import { replyLines } from '../../src/main/engine/prompts/reply';
import { claudeCode, codex } from '../../src/main/engine/runtimes';
import { RigWorld } from '../support/rig';

/**
 * A turn that ended, for the Decisions view's "finished since you looked": when the log says the
 * seat's last turn ended (a real SQLite store), and the first lines of its reply from the screen.
 */
describe('a turn that ended', () => {
  let w: RigWorld;
  let e: Engine;
  let seq = 0;
  beforeAll(() => {
    w = new RigWorld();
    e = w.engine();
  });
  afterAll(() => w?.cleanup());
  const seatOf = () => `s${++seq}@r`;
  const log = (seat: string, ...labels: string[]) => {
    for (const label of labels) e.store.events.append('seat.activity', { rig: 'r', seat }, { label });
    return e.store.events.list({ seat, kind: 'seat.activity' }).map((r) => r.at);
  };

  it('is the first idle after the seat last worked or waited, while it stays idle', () => {
    const a = seatOf();
    const at = log(a, 'unknown', 'idle', 'working', 'idle', 'idle');
    expect(e.store.events.turnEndedAt(a)).toBe(at[3]);
    const b = seatOf();
    const bt = log(b, 'idle', 'needs_input', 'idle');
    expect(e.store.events.turnEndedAt(b)).toBe(bt[2]);
  });

  it('is nothing while the seat works or waits, after it exited, or when it never worked on record', () => {
    expect(e.store.events.turnEndedAt(seatOf())).toBeUndefined();
    const c = seatOf();
    log(c, 'idle', 'working');
    expect(e.store.events.turnEndedAt(c)).toBeUndefined();
    const d = seatOf();
    log(d, 'working', 'idle', 'exited');
    expect(e.store.events.turnEndedAt(d)).toBeUndefined();
    const f = seatOf();
    log(f, 'unknown', 'idle', 'idle');
    expect(e.store.events.turnEndedAt(f)).toBeUndefined();
  });

  it("reads the reply's first lines after the person's last message, up to the input box", () => {
    const claude = [
      '❯ hello',
      '',
      '● ACK hello',
      '',
      '❯ RUN: touch a.txt',
      '',
      '● Bash(touch a.txt)',
      '  ⎿  (No content)',
      '',
      '● ACK tool result: ',
      '',
      '✻ Churned for 0s',
      '',
      '────────────────────────────────────────',
      '❯ ',
      '────────────────────────────────────────',
    ];
    expect(replyLines(claude, claudeCode.replyMarks!)).toEqual([
      '● Bash(touch a.txt)',
      '  ⎿  (No content)',
      '● ACK tool result:',
    ]);
    const cx = [
      '› ASK: Which colour?|Red|Blue',
      '',
      '• Questions 1/1 answered',
      '  • Which colour?',
      '    answer: Blue',
      '',
      '• ACK tool result: {"answers":{"choice":{"answers":["Blue"]}}}',
      '',
      '─ Worked for 7s ─────────────────',
      '',
      '› Ask Codex to do anything',
    ];
    expect(replyLines(cx, codex.replyMarks!, 4)).toEqual([
      '• Questions 1/1 answered',
      '  • Which colour?',
      '    answer: Blue',
      '• ACK tool result: {"answers":{"choice":{"answers":["Blue"]}}}',
    ]);
    expect(replyLines(['❯ hi', '', '────────', '❯ '], claudeCode.replyMarks!)).toEqual([]);
  });
});
