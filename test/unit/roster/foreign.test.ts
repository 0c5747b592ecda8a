import { describe, expect, it } from 'vitest';
import { buildSnapshot } from '../../../src/main/engine/proc/lineage';
import type { ProcInfo, ProcSnapshot } from '../../../src/main/engine/proc/types';
import { FOREIGN_MAX_AGE_MS, ForeignListings, type Listing } from '../../../src/main/engine/roster/foreign';
import type { PaneRow } from '../../../src/main/engine/tmux/format';

/**
 * When another server's kept listing may stand in for a new one (roster/foreign.ts): only while the
 * process table still fits it. The live counterpart (real tmux, counted spawns) is in
 * test/engine/roster.test.ts.
 */

const KEY = 'S:/tmp/tmux-1000/default';
const SERVER = 100;

function proc(pid: number, ppid: number, startTime: string, comm = 'bash'): ProcInfo {
  return { pid, ppid, pgid: pid, sid: pid, tpgid: -1, ttyNr: 0, startTime, comm, argv: [comm], uid: 1000 };
}

function row(paneId: string, panePid: number): PaneRow {
  return {
    serverPid: SERVER,
    sessionId: '$0',
    sessionCreated: 1,
    paneId,
    panePid,
    paneDead: false,
    paneActive: true,
    windowIndex: 0,
    paneIndex: 0,
    width: 80,
    height: 24,
    currentCommand: 'bash',
    seatTag: '',
    attemptTag: '',
    pipe: false,
    sessionName: 'mine',
    currentPath: '/home/me',
    title: 'host',
  };
}

function listing(rows: PaneRow[], extra: Partial<{ running: boolean; malformed: number }> = {}): Listing {
  return { ok: true, running: true, panes: rows, malformed: 0, ...extra };
}

/** tmux server 100; pane %0 runs bash 200 with an agent 300 under it; pane %1 runs bash 210. */
function table(over: ProcInfo[] = []): ProcSnapshot {
  const base = [
    proc(1, 0, '1', 'init'),
    proc(SERVER, 1, '50', 'tmux: server'),
    proc(200, SERVER, '60'),
    proc(300, 200, '70', 'claude'),
    proc(210, SERVER, '61'),
  ];
  const byPid = new Map(base.map((p) => [p.pid, p]));
  for (const p of over) byPid.set(p.pid, p);
  return buildSnapshot(byPid.values(), 0);
}

function kept(at = { t: 0 }): { f: ForeignListings; at: { t: number }; first: Listing } {
  const f = new ForeignListings(() => at.t);
  const first = listing([row('%0', 200), row('%1', 210)]);
  f.keep(KEY, first, table());
  return { f, at, first };
}

describe('another tmux server: its listing is used again only while the process table fits it', () => {
  it('the same processes, the agent under a listed pane: the kept listing', () => {
    const { f, first } = kept();
    expect(f.reuse(KEY, table(), [300])).toBe(first);
    // The agent may be a pane process itself.
    expect(f.reuse(KEY, table(), [200])).toBe(first);
  });

  it('an agent in a pane made since (its shell is the server child no listed pane names): listed again', () => {
    const { f } = kept();
    const snap = table([proc(220, SERVER, '80'), proc(320, 220, '81', 'claude')]);
    expect(f.reuse(KEY, snap, [300, 320])).toBeUndefined();
    // Once dropped, it stays dropped until a new listing is kept.
    expect(f.reuse(KEY, table(), [300])).toBeUndefined();
  });

  it('a pane process gone, or its pid now another process (start time): listed again', () => {
    const gone = kept();
    const without = buildSnapshot(
      [...table().byPid.values()].filter((p) => p.pid !== 210),
      0,
    );
    expect(gone.f.reuse(KEY, without, [300])).toBeUndefined();
    const reused = kept();
    expect(reused.f.reuse(KEY, table([proc(210, SERVER, '99')]), [300])).toBeUndefined();
  });

  it('the server restarted (its pid another process): listed again', () => {
    const { f } = kept();
    expect(f.reuse(KEY, table([proc(SERVER, 1, '77', 'tmux: server')]), [300])).toBeUndefined();
  });

  it(`older than ${FOREIGN_MAX_AGE_MS / 1000} s: listed again however well it fits`, () => {
    const { f, at, first } = kept();
    at.t = FOREIGN_MAX_AGE_MS - 1;
    expect(f.reuse(KEY, table(), [300])).toBe(first);
    at.t = FOREIGN_MAX_AGE_MS;
    expect(f.reuse(KEY, table(), [300])).toBeUndefined();
  });

  it('a listing that failed, found no server, lost rows or names a process the snapshot lacks is never kept', () => {
    const f = new ForeignListings(() => 0);
    const cases: Listing[] = [
      { ok: false, code: 'TMUX_FAILED', message: 'timed out' },
      listing([], { running: false }),
      listing([row('%0', 200)], { malformed: 1 }),
      listing([row('%0', 200), row('%9', 999)]),
    ];
    for (const l of cases) {
      f.keep(KEY, l, table());
      expect(f.reuse(KEY, table(), [300])).toBeUndefined();
    }
  });

  it('a server the last refresh found no agent on is forgotten', () => {
    const { f } = kept();
    f.keepOnly(new Set(['S:/tmp/other']));
    expect(f.reuse(KEY, table(), [300])).toBeUndefined();
  });
});
