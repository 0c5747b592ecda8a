import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { RigWorld } from '../support/rig';
import { waitFor } from '../support/tmux';

/** The per-seat lease: concurrent sends to one seat arrive whole and in the order they asked. */
describe('concurrent sends to one seat (real tmux, real CLI processes)', () => {
  let w: RigWorld;
  beforeEach(async () => {
    w = new RigWorld();
    // The seat's program is `tee`: every line it receives lands in out.txt, whole or not.
    const spec = w.spec(
      'rig.yaml',
      'name: d\npods:\n  - id: p\n    members:\n      - { id: sink, runtime: shell, cwd: ., command: tee, args: ["out.txt"] }\n',
    );
    expect((await w.cli(['up', spec])).code).toBe(0);
    await waitFor(async () => (await w.cli(['ps', '--json'])).json.seats[0].activity === 'idle', { what: 'idle sink' });
  });
  afterEach(() => w.cleanup());

  it('six senders at once: every message arrives whole, and in the order of their turns', async () => {
    const texts = ['A', 'B', 'C', 'D', 'E', 'F'].map((c) => `${c}:${c.repeat(900)}`);
    const results = await Promise.all(texts.map((t) => w.cli(['send', 'sink@d', t, '--json'])));
    for (const r of results) expect(r.code, r.stdout + r.stderr).toBe(0);
    const out = join(w.root, 'out.txt');
    await waitFor(() => readFileSync(out, 'utf8').split('\n').filter(Boolean).length === 6, { what: 'six lines' });
    const lines = readFileSync(out, 'utf8').split('\n').filter(Boolean);
    expect([...lines].sort()).toEqual([...texts].sort());
    const ev = await w.cli(['events', '--seat', 'sink@d', '--json']);
    const order = ev.json.events
      .filter((e: { kind: string }) => e.kind === 'seat.send')
      .map((e: { data: { preview: string } }) => e.data.preview.slice(0, 1));
    expect(lines.map((l) => l.slice(0, 1))).toEqual(order);
  });

  it('a sender whose lease never comes is held, never typed (fault: a live ticket ahead of it)', async () => {
    const e = w.engine();
    // A ticket held by this (live) test process for the seat: the CLI's send must wait and give up.
    e.store.db
      .prepare('INSERT INTO delivery_tickets (seat, holder_pid, holder_start, created_at) VALUES (?, ?, ?, ?)')
      .run('sink@d', process.pid, e.deps.proc.read(process.pid)!.startTime, Date.now());
    const { withSeatTurn } = await import('../../src/main/engine/delivery/lease');
    const r = await withSeatTurn(e.ports, 'sink@d', Date.now() + 300, async () => 'typed');
    expect(r.ok).toBe(false);
    expect(readFileSync(join(w.root, 'out.txt'), 'utf8')).toBe('');
  });

  it('a busy seat holds an automatic send; --force types only with a reason, and the reason is recorded', async () => {
    const spec = w.spec(
      'busy.yaml',
      'name: b\npods:\n  - id: p\n    members:\n      - { id: sh, runtime: shell, cwd: ., command: bash, args: ["--noprofile", "--norc"] }\n',
    );
    expect((await w.cli(['up', spec])).code).toBe(0);
    await waitFor(async () => (await w.cli(['ps', '--rig', 'b', '--json'])).json.seats[0].activity === 'idle', {
      what: 'idle bash',
    });
    w.tmux.run(['send-keys', '-t', 'sh@b', 'sleep 30', 'Enter']);
    await waitFor(async () => (await w.cli(['ps', '--rig', 'b', '--json'])).json.seats[0].activity === 'working', {
      what: 'busy bash',
    });
    const held = await w.cli(['send', 'sh@b', 'echo typed-anyway', '--json']);
    expect(held.json).toMatchObject({ code: 'SEND_HELD', evidence: { why: 'working' } });
    const noReason = await w.cli(['send', 'sh@b', 'echo typed-anyway', '--force', '--json']);
    expect(noReason.code).toBe(2);
    const forced = await w.cli([
      'send',
      'sh@b',
      'echo typed-anyway',
      '--force',
      '--reason',
      'the person asked',
      '--json',
    ]);
    expect(forced.code, forced.stdout).toBe(0);
    expect(forced.json.sent.warnings.join(' ')).toContain('the person asked');
    const ev = await w.cli(['events', '--seat', 'sh@b', '--json']);
    expect(ev.json.events.find((e: { kind: string }) => e.kind === 'seat.send_override').data).toMatchObject({
      why: 'working',
      reason: 'the person asked',
    });
  });
});
