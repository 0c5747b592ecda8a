import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { openDb, schemaVersion } from '../../src/main/engine/store/db';
import { MIGRATIONS } from '../../src/main/engine/store/migrations';
import { Store } from '../../src/main/engine/store';
import { insertSeat } from '../../src/main/engine/store/restore-seats';

describe('the store (real SQLite file)', () => {
  let dir: string;
  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), 'rd-store-'));
  });
  afterEach(() => rmSync(dir, { recursive: true, force: true }));

  it('opens in WAL mode with every migration recorded once, also when opened twice at once', () => {
    const a = openDb(join(dir, 'x.db'));
    const b = openDb(join(dir, 'x.db'));
    expect(a.pragma('journal_mode', { simple: true })).toBe('wal');
    expect(schemaVersion(b)).toBe(MIGRATIONS[MIGRATIONS.length - 1]!.version);
    expect((a.prepare('SELECT COUNT(*) AS n FROM schema_migrations').get() as { n: number }).n).toBe(MIGRATIONS.length);
    a.close();
    b.close();
  });

  it('the event log is append-only: rows cannot be changed or deleted', () => {
    const s = Store.open(join(dir, 'x.db'));
    s.events.append('seat.launch', { rig: 'r', seat: 'a@r' }, { n: 1 });
    expect(() => s.db.prepare("UPDATE events SET kind = 'x'").run()).toThrow(/append-only/);
    expect(() => s.db.prepare('DELETE FROM events').run()).toThrow(/append-only/);
    expect(s.events.list()).toHaveLength(1);
    s.close();
  });

  it("a window's poll for new rows sees every row committed since, by this connection or another, however many polls found none", () => {
    const s = Store.open(join(dir, 'x.db'));
    const other = Store.open(join(dir, 'x.db'));
    const first = s.events.append('seat.launch', { rig: 'r', seat: 'a@r' }, { n: 1 });
    const poll = () => s.events.list({ afterSeq: first, limit: 500 }).map((e) => e.data.n);
    expect(poll()).toEqual([]);
    expect(poll()).toEqual([]);
    // Another connection (another engine, the CLI) commits: the next poll has it.
    other.events.append('seat.stop', { rig: 'r', seat: 'a@r' }, { n: 2 });
    expect(poll()).toEqual([2]);
    expect(s.events.list({ afterSeq: first + 1 })).toEqual([]);
    // This connection appends: the next poll has it too.
    s.events.append('seat.launch', { rig: 'r', seat: 'a@r' }, { n: 3 });
    expect(s.events.list({ afterSeq: first + 1 }).map((e) => e.data.n)).toEqual([3]);
    // A poll with a filter is never answered from a quiet tail.
    expect(s.events.list({ afterSeq: first, seat: 'a@r' }).map((e) => e.data.n)).toEqual([2, 3]);
    other.close();
    s.close();
  });

  it("a seat's state time and turn end, read again at every look of ps, follow every commit, by this connection or another", () => {
    const s = Store.open(join(dir, 'x.db'));
    const other = Store.open(join(dir, 'x.db'));
    const at = (store: Store, label: string) => {
      store.events.append('seat.activity', { rig: 'r', seat: 'a@r' }, { label });
      return store.events.list({ newest: 1 })[0]!.at;
    };
    expect(s.events.stateSince('a@r')).toBeUndefined();
    at(s, 'working');
    const idle = at(s, 'idle');
    expect([s.events.stateSince('a@r'), s.events.turnEndedAt('a@r')]).toEqual([idle, idle]);
    expect([s.events.stateSince('a@r'), s.events.turnEndedAt('a@r')]).toEqual([idle, idle]);
    // Another connection (the CLI, another engine) commits: the next read has it.
    const working = at(other, 'working');
    expect([s.events.stateSince('a@r'), s.events.turnEndedAt('a@r')]).toEqual([working, undefined]);
    // This connection appends: so does the next read.
    const again = at(s, 'idle');
    expect([s.events.stateSince('a@r'), s.events.turnEndedAt('a@r')]).toEqual([again, again]);
    expect(s.events.stateSince('b@r')).toBeUndefined();
    other.close();
    s.close();
  });

  it("the log's end: the newest rows, oldest first, by the same filters, without reading the rest", () => {
    const s = Store.open(join(dir, 'x.db'));
    expect(s.events.list({ newest: 1 })).toEqual([]);
    for (let n = 1; n <= 5; n++) s.events.append('seat.launch', { rig: 'r', seat: n % 2 ? 'a@r' : 'b@r' }, { n });
    expect(s.events.list({ newest: 1 }).map((e) => e.data.n)).toEqual([5]);
    expect(s.events.list({ newest: 3 }).map((e) => e.data.n)).toEqual([3, 4, 5]);
    expect(s.events.list({ newest: 2, seat: 'b@r' }).map((e) => e.data.n)).toEqual([2, 4]);
    // After a seq, the newest of what follows it; a quiet tail poll never answers for it.
    const seq3 = s.events.list({ newest: 3 })[0]!.seq;
    expect(s.events.list({ afterSeq: seq3 + 2 })).toEqual([]);
    expect(s.events.list({ afterSeq: seq3 + 2, newest: 1 })).toEqual([]);
    expect(s.events.list({ afterSeq: seq3, newest: 1 }).map((e) => e.data.n)).toEqual([5]);
    s.close();
  });

  it('the fence allows one active reservation per seat and only legal phase moves', () => {
    const s = Store.open(join(dir, 'x.db'));
    const input = {
      seat: 'a@r',
      attempt: 'x',
      holderPid: 1,
      holderStart: '1',
      server: 'L:t',
      sessionName: 'a@r',
      plan: { mode: 'fresh' as const, runtime: 'shell' },
    };
    const first = s.reservations.reserve(input);
    expect(first.ok).toBe(true);
    const second = s.reservations.reserve({ ...input, attempt: 'y' });
    expect(second.ok).toBe(false);
    // The partial unique index holds even against a direct insert.
    expect(() =>
      s.db
        .prepare(
          "INSERT INTO reservations (seat, phase, attempt, holder_pid, tmux_socket, session_name, created_at, updated_at) VALUES ('a@r', 'reserved', 'z', 1, 'L:t', 'a@r', 0, 0)",
        )
        .run(),
    ).toThrow(/UNIQUE/);
    if (!first.ok) return;
    expect(() => s.reservations.advance(first.row.id, 'reserved', 'released')).toThrow(/illegal/);
    expect(s.reservations.advance(first.row.id, 'reserved', 'helper_invoked')).toBe(true);
    expect(s.reservations.advance(first.row.id, 'reserved', 'helper_invoked')).toBe(false); // lost the race
    expect(s.reservations.advance(first.row.id, 'helper_invoked', 'abandoned', { outcome: 'test' })).toBe(true);
    expect(s.reservations.reserve({ ...input, attempt: 'w' }).ok).toBe(true);
    s.close();
  });

  it("bringing a rig up again keeps each seat's conversation and stop flag", () => {
    const s = Store.open(join(dir, 'x.db'));
    const spec = {
      name: 'r',
      specPath: '/x/r.yaml',
      edges: [],
      pods: [
        {
          id: 'p',
          members: [
            {
              id: 'a',
              podId: 'p',
              runtime: 'claude-code',
              cwd: '/tmp',
              args: [],
              env: {},
              restorePolicy: 'resume_if_possible' as const,
            },
          ],
        },
      ],
    };
    s.rigs.upsert(spec);
    s.rigs.setConversation('a@r', 'c1');
    s.rigs.setStoppedOnPurpose('a@r', true);
    s.rigs.upsert({ ...spec, pods: [{ ...spec.pods[0]!, members: [{ ...spec.pods[0]!.members[0]!, cwd: '/var' }] }] });
    expect(s.rigs.seat('a@r')).toMatchObject({ cwd: '/var', conversationId: 'c1', stoppedOnPurpose: true });
    s.close();
  });

  it("a rig's seats list in the spec's order (pods and members as written, a10 after a9), and a seat made later after them", () => {
    const s = Store.open(join(dir, 'x.db'));
    const member = (id: string, podId: string) => ({
      id,
      podId,
      runtime: 'shell',
      cwd: '/tmp',
      args: [],
      env: {},
      restorePolicy: 'resume_if_possible' as const,
    });
    const pod = (id: string, ids: string[]) => ({ id, members: ids.map((m) => member(m, id)) });
    const spec = {
      name: 'r',
      specPath: '/x/r.yaml',
      edges: [],
      pods: [pod('zeta', ['a9', 'a10']), pod('alpha', ['b'])],
    };
    s.rigs.upsert(spec);
    const order = () => s.rigs.seats('r').map((x) => x.seat);
    expect(order()).toEqual(['a9@r', 'a10@r', 'b@r']);
    // Brought up again with a member added at the front: the new order is the spec's.
    s.rigs.upsert({ ...spec, pods: [pod('zeta', ['a0', 'a9', 'a10']), pod('alpha', ['b'])] });
    expect(order()).toEqual(['a0@r', 'a9@r', 'a10@r', 'b@r']);
    expect(s.rigs.seats().map((x) => x.seat)).toEqual(order());
    // A fork of a9 is made after: it lists after the spec's seats, and stays there on another up.
    const fork = { ...member('a9x', 'zeta'), seat: 'a9x@r', rig: 'r', pod: 'zeta', member: 'a9x', command: null };
    expect(insertSeat(s, fork, 1)).toBe(true);
    s.rigs.upsert({ ...spec, pods: [pod('zeta', ['a0', 'a9', 'a10']), pod('alpha', ['b'])] });
    expect(order()).toEqual(['a0@r', 'a9@r', 'a10@r', 'b@r', 'a9x@r']);
    s.close();
  });
});
