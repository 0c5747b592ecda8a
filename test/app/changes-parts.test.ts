import { describe, expect, it } from 'vitest';
import { type PsRow, psRow } from '../../src/shared/contract';
import { type SeatChanges, seatChanges } from '../../src/shared/contract/changes';
import { overlapKeys, overlapPairs } from '../../src/renderer/src/state/changes';
import { liveOverlaps, overlapEdges } from '../../src/renderer/src/views/changes/overlap-edges';
import { firstAddedLine, splitPatch } from '../../src/renderer/src/views/changes/patch';
import { SEAT_H, SEAT_W } from '../../src/renderer/src/views/topology-layout';

/**
 * The window's pure parts of the Changes loop: when the seats push says a rig's overlaps moved
 * (and only then), which pairs the topology draws and where, and a seat's patch cut per file.
 */

const row = (seat: string, changes?: PsRow['changes']): PsRow =>
  psRow.parse({
    seat,
    rig: seat.split('@')[1],
    pod: 'work',
    member: seat.split('@')[0],
    runtime: 'shell',
    cwd: '/w',
    state: 'running',
    activity: 'idle',
    stoppedOnPurpose: false,
    ...(changes ? { changes } : {}),
  });

const listed = (seat: string, overlaps: SeatChanges['overlaps']): SeatChanges =>
  seatChanges.parse({ seat, rig: seat.split('@')[1], sharedWith: [], files: [], overlaps });

describe('the Changes loop in the window, its pure parts', () => {
  it('keys a rig by its overlapping seats and their totals: unchanged figures keep the key, a new write or a new pair changes it, no overlap has none', () => {
    const a = { files: 2, added: 3, removed: 1 };
    const seats = {
      's1@wt': row('s1@wt', { ...a, overlapsWith: ['s2@wt'] }),
      's2@wt': row('s2@wt', { files: 1, added: 1, removed: 0, overlapsWith: ['s1@wt'] }),
      's3@wt': row('s3@wt', { files: 4, added: 4, removed: 0 }),
      'x@other': row('x@other', { files: 1, added: 1, removed: 0 }),
    };
    const k = overlapKeys(seats);
    expect([...k.keys()]).toEqual(['wt']);
    // Another seat's write, outside the overlap, leaves the key as it was: no read.
    expect(overlapKeys({ ...seats, 's3@wt': row('s3@wt', { files: 5, added: 9, removed: 0 }) })).toEqual(k);
    // A write to an overlapping seat may move the shared paths: read again.
    const moved = overlapKeys({ ...seats, 's1@wt': row('s1@wt', { ...a, added: 4, overlapsWith: ['s2@wt'] }) });
    expect(moved.get('wt')).not.toBe(k.get('wt'));
    expect(overlapKeys({ 's3@wt': seats['s3@wt'] }).size).toBe(0);
  });

  it('draws each overlapping pair once, only while the seats push still says it overlaps, bowed beside the seats', () => {
    const bySeat = {
      's1@wt': listed('s1@wt', [{ seat: 's2@wt', paths: ['src/app.ts'] }]),
      's2@wt': listed('s2@wt', [{ seat: 's1@wt', paths: ['src/app.ts'] }]),
    };
    expect(overlapPairs(bySeat)).toEqual([{ a: 's1@wt', b: 's2@wt', paths: ['src/app.ts'] }]);
    const places = new Map([
      ['s1@wt', { x: 0, y: 0 }],
      ['s2@wt', { x: 0, y: 200 }],
    ]);
    const live = liveOverlaps({
      's1@wt': row('s1@wt', { files: 1, added: 1, removed: 0, overlapsWith: ['s2@wt'] }),
      's2@wt': row('s2@wt', { files: 1, added: 1, removed: 0, overlapsWith: ['s1@wt'] }),
    });
    expect(live).toBe('s1@wt|s2@wt');
    const [edge, ...more] = overlapEdges(bySeat, live, places);
    expect(more).toEqual([]);
    expect(edge).toMatchObject({ source: 's1@wt', target: 's2@wt', data: { kind: 'overlaps', note: 'src/app.ts' } });
    // Stacked seats: out of both right sides, the bend to the right of them (never on their spec edge).
    expect(edge!.sourceHandle).toBe('s-r');
    const route = edge!.data!.route!;
    expect(route[0]).toEqual({ x: SEAT_W, y: SEAT_H / 2 });
    expect(route[1]!.x).toBeGreaterThan(SEAT_W);
    // The push says the overlap ended (its paths read before still kept): no edge.
    expect(overlapEdges(bySeat, '', places)).toEqual([]);
    // A seat the layout did not place (another rig shown, say): no edge.
    expect(overlapEdges(bySeat, live, new Map([['s1@wt', { x: 0, y: 0 }]]))).toEqual([]);
  });

  it('cuts a seat’s patch per file: modified, added, deleted, renamed and binary files keep their paths', () => {
    const patch = [
      'diff --git a/src/app.ts b/src/app.ts',
      'index 1..2 100644',
      '--- a/src/app.ts',
      '+++ b/src/app.ts',
      '@@ -1 +1 @@',
      '-a',
      '+b',
      'diff --git a/new.md b/new.md',
      'new file mode 100644',
      '--- /dev/null',
      '+++ b/new.md',
      '@@ -0,0 +1 @@',
      '+hi',
      'diff --git a/gone.txt b/gone.txt',
      'deleted file mode 100644',
      '--- a/gone.txt',
      '+++ /dev/null',
      '@@ -1 +0,0 @@',
      '-bye',
      'diff --git a/old name.txt b/new name.txt',
      'similarity index 100%',
      'rename from old name.txt',
      'rename to new name.txt',
      'diff --git a/logo.png b/logo.png',
      'Binary files a/logo.png and b/logo.png differ',
      '',
    ].join('\n');
    const files = splitPatch(patch);
    expect(files.map((f) => f.path)).toEqual(['src/app.ts', 'new.md', 'gone.txt', 'new name.txt', 'logo.png']);
    expect(files[0]!.text).toContain('+b');
    expect(files[0]!.text).not.toContain('new.md');
    // The keyboard's comment starts at the first line a file adds.
    expect(firstAddedLine(['@@ -3,4 +3,5 @@', ' a', '-b', ' c', '+d', ' e'].join('\n'))).toBe(5);
    expect(firstAddedLine(files[1]!.text)).toBe(1);
    expect(firstAddedLine(null)).toBe(1);
  });
});
