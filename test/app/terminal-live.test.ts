import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { encodeAck, encodeFrame, FRAME } from '../../src/shared/contract/app';
import { FLOW_HIGH_WATERMARK } from '../../src/main/terminal/flow';
import { TerminalHub } from '../../src/main/terminal/hub';
import { livePty } from '../../src/main/terminal/pty';
import { Terminal } from '@xterm/headless';
import { waitFor } from '../support/tmux';
import { appWorld, WireClient, type AppWorld } from './helpers';

let w: AppWorld;
beforeAll(async () => {
  w = await appWorld('live', ['lead', 'flood', 'calm']);
}, 120_000);
afterAll(async () => {
  await w?.cleanup();
});

const windowSize = (seat: string) =>
  w.world.tmux
    .run([
      'display-message',
      '-p',
      '-t',
      w.engine.store.sessions.live(seat)!.sessionId,
      '#{window_width}x#{window_height}',
    ])
    .trim();
const text = (c: WireClient, term: number) =>
  Buffer.concat(
    c.frames.filter((f) => f[0] === FRAME.OUTPUT && f.readUInt32BE(1) === term).map((f) => f.subarray(5)),
  ).toString('utf8');

describe('live terminals over the serve host (real tmux, node-pty attach clients)', () => {
  // The window is the viewer's size less tmux's status line (on in these servers), which the
  // viewer shows too: a 30-row viewer is a 29-row pane.
  it('two viewers of one seat never fight over its size: only the size owner (last to open or type) resizes it', async () => {
    const a = await WireClient.open(w.serve);
    const b = await WireClient.open(w.serve);
    const ta = (await a.call('terminal.open', { seat: 'lead@live', cols: 100, rows: 30 })).term;
    await waitFor(() => windowSize('lead@live') === '100x29', { what: 'A size' });
    const tb = (await b.call('terminal.open', { seat: 'lead@live', cols: 70, rows: 20 })).term;
    await waitFor(() => windowSize('lead@live') === '70x19', { what: 'B took the size by opening' });
    // A re-fits many times (a window being dragged): it is not the owner, so nothing moves.
    for (let i = 0; i < 10; i++)
      expect(await a.call('terminal.resize', { term: ta, cols: 90 + i, rows: 25 })).toMatchObject({ ok: true });
    expect(windowSize('lead@live')).toBe('70x19');
    expect(w.serve.ctx.terminals.inspect(tb)?.sizeOwner).toBe(true);
    // Typing in A makes A the owner, at A's last settled size; B's re-fits then move nothing.
    a.ws.send(encodeFrame(FRAME.INPUT, ta, new TextEncoder().encode(' ')));
    await waitFor(() => windowSize('lead@live') === '99x24', { what: 'A owns after typing' });
    await b.call('terminal.resize', { term: tb, cols: 60, rows: 15 });
    expect(windowSize('lead@live')).toBe('99x24');
    a.close();
    b.close();
    await waitFor(() => w.serve.ctx.terminals.count === 0, { what: 'viewers closed with their sockets' });
  });

  it('flow control: an unacked flood pauses that viewer above the high watermark, acks resume it, the other seat stays live', async () => {
    const c = await WireClient.open(w.serve);
    const flood = (await c.call('terminal.open', { seat: 'flood@live', cols: 120, rows: 40 })).term;
    const calm = (await c.call('terminal.open', { seat: 'calm@live', cols: 80, rows: 24 })).term;
    await waitFor(
      () => /[$#] ?$/m.test(w.world.tmux.capture(w.engine.store.sessions.live('flood@live')!.paneId).trimEnd()),
      { what: 'prompt' },
    );
    c.ws.send(encodeFrame(FRAME.INPUT, flood, new TextEncoder().encode('yes rigdesk-flood-line\r')));
    await waitFor(() => w.serve.ctx.terminals.inspect(flood)?.flow.paused, {
      what: 'flood viewer paused',
      timeoutMs: 20_000,
    });
    // The host paused past the watermark by its own count; what it sent is still in flight to this
    // client (under load it read 99404 of it at that moment), so the client's count is read once
    // every byte the host counts has arrived.
    const received = () => c.frames.filter((f) => f.readUInt32BE(1) === flood).reduce((n, f) => n + f.length - 5, 0);
    const unacked = w.serve.ctx.terminals.inspect(flood)!.flow.unacked;
    expect(unacked).toBeGreaterThan(FLOW_HIGH_WATERMARK);
    await waitFor(() => received() >= unacked, { what: 'the bytes in flight at the pause arrived', timeoutMs: 10_000 });
    const sentWhenPaused = received();
    expect(sentWhenPaused).toBeGreaterThan(FLOW_HIGH_WATERMARK);
    await new Promise((r) => setTimeout(r, 500));
    const later = received();
    // Paused: at most what was already batched in flight when the pause hit.
    expect(later - sentWhenPaused).toBeLessThan(256 * 1024);
    // The other seat still answers while the flood is held back.
    c.ws.send(encodeFrame(FRAME.INPUT, calm, new TextEncoder().encode('echo calm-$((2+3))\r')));
    await waitFor(() => /calm-5/.test(text(c, calm)), { what: 'calm seat output', timeoutMs: 10_000 });
    // Ack what has arrived, as xterm's write callback would, until the viewer resumes.
    let acked = 0;
    await waitFor(
      () => {
        const got = received();
        if (got > acked) c.ws.send(encodeAck(flood, got - acked));
        acked = got;
        // Counted, not sampled: the flood goes on and may pause it again before the next look.
        return (w.serve.ctx.terminals.inspect(flood)?.flow.resumes ?? 0) > 0;
      },
      { what: 'resumed after ack', timeoutMs: 20_000 },
    );
    // Stop the flood (Ctrl-C through tmux, not the viewer being closed) and see it stopped, so the
    // next test finds the seat at its prompt.
    const floodPane = w.engine.store.sessions.live('flood@live')!.paneId;
    w.world.tmux.run(['send-keys', '-t', floodPane, 'C-c']);
    await waitFor(() => /[$#] ?$/m.test(w.world.tmux.capture(floodPane).trimEnd()), { what: 'the flood stopped' });
    c.close();
    await waitFor(() => w.serve.ctx.terminals.count === 0, { what: 'viewers closed' });
  });

  it("a flood's last screen reaches the window whole, with every pane row in view above the status line", async () => {
    const c = await WireClient.open(w.serve);
    const t = (await c.call('terminal.open', { seat: 'lead@live', cols: 120, rows: 40 })).term;
    const pane = w.engine.store.sessions.live('lead@live')!.paneId;
    await waitFor(() => /[$#] ?$/m.test(w.world.tmux.capture(pane).trimEnd()), { what: 'prompt' });
    await new Promise((r) => setTimeout(r, 300));
    const before = c.frames.length;
    const lines = 200_000;
    c.ws.send(encodeFrame(FRAME.INPUT, t, new TextEncoder().encode(`seq 1 ${lines}; echo flood-done-$((6*7))\r`)));
    // Acked as xterm's write callback would, so flow control never holds it.
    let acked = 0;
    const mine = () => c.frames.slice(before).filter((f) => f[0] === FRAME.OUTPUT && f.readUInt32BE(1) === t);
    await waitFor(
      () => {
        const got = mine().reduce((n, f) => n + f.length - 5, 0);
        if (got > acked) c.ws.send(encodeAck(t, got - acked));
        acked = got;
        return (
          /^flood-done-42\r?$/m.test(w.world.tmux.capture(pane)) &&
          /flood-done-42/.test(Buffer.concat(mine().map((f) => f.subarray(5))).toString('latin1'))
        );
      },
      { what: 'the end of the flood in the window', timeoutMs: 60_000, intervalMs: 20 },
    );
    await new Promise((r) => setTimeout(r, 300));
    // Everything this viewer got since it opened (tmux's first full draw on), replayed into a
    // terminal of the same size, is the pane's last screen.
    const all = Buffer.concat(
      c.frames.filter((f) => f[0] === FRAME.OUTPUT && f.readUInt32BE(1) === t).map((f) => f.subarray(5)),
    );
    const term = new Terminal({ cols: 120, rows: 40, allowProposedApi: true });
    await new Promise<void>((r) => term.write(all, r));
    const screen = Array.from(
      { length: 40 },
      (_, i) => term.buffer.active.getLine(term.buffer.active.viewportY + i)?.translateToString(true) ?? '',
    );
    const tmuxScreen = w.world.tmux.run(['capture-pane', '-p', '-t', pane]).replace(/\n$/, '').split('\n');
    // The pane is the viewer less the status line, so every pane row is in view above it.
    expect(tmuxScreen).toHaveLength(39);
    expect(screen.slice(0, 39).map((l) => l.trimEnd())).toEqual(tmuxScreen.map((l) => l.trimEnd()));
    expect(screen[39]).toContain('lead@live');
    term.dispose();
    c.close();
    await waitFor(() => w.serve.ctx.terminals.count === 0, { what: 'viewer closed' });
  });

  it('a viewer read once a frame is sent a fraction of what an ungated one is during a flood, keeps getting screens, and ends on the same last screen', async () => {
    // Two viewers of one flood, side by side at one size, each acking at once (a window that keeps
    // up, so flow control never holds either): one with the read gate, one read as fast as the pty gives.
    const seat = 'flood@live';
    const pane = w.engine.store.sessions.live(seat)!.paneId;
    await waitFor(() => /[$#] ?$/m.test(w.world.tmux.capture(pane).trimEnd()), { what: 'prompt' });
    const hubs = { gated: new TerminalHub(w.engine), ungated: new TerminalHub(w.engine, livePty, undefined, 0) };
    const owner = {};
    const got = { gated: [] as Buffer[], ungated: [] as Buffer[] };
    const at = { gated: [] as number[], ungated: [] as number[] };
    const terms = { gated: 0, ungated: 0 };
    for (const k of ['ungated', 'gated'] as const) {
      const r = await hubs[k].open(owner, seat, 120, 40, {
        frame: (f) => {
          got[k].push(Buffer.from(f.subarray(5)));
          at[k].push(performance.now());
          hubs[k].ack(owner, terms[k], f.length - 5);
        },
        exit: () => undefined,
      });
      if (!r.ok) throw new Error(JSON.stringify(r));
      terms[k] = r.term;
    }
    await new Promise((r) => setTimeout(r, 500)); // both first draws in
    const from = { gated: got.gated.length, ungated: got.ungated.length };
    w.world.tmux.run(['send-keys', '-t', pane, 'seq 1 2000000; echo gate-done-$((6*7))', 'Enter']);
    const since = (k: 'gated' | 'ungated') => Buffer.concat(got[k].slice(from[k]));
    await waitFor(
      () =>
        /gate-done-42/.test(since('gated').toString('latin1')) &&
        /gate-done-42/.test(since('ungated').toString('latin1')),
      { what: 'the end of the flood in both viewers', timeoutMs: 60_000, intervalMs: 20 },
    );
    await new Promise((r) => setTimeout(r, 300));
    const bytes = { gated: since('gated').length, ungated: since('ungated').length };
    expect(bytes.gated, `gated ${bytes.gated} B vs ungated ${bytes.ungated} B`).toBeLessThan(bytes.ungated / 2);
    // Not a frozen window until the flood ends: screens keep coming while it runs.
    const times = at.gated.slice(from.gated);
    const silence = Math.max(...times.slice(1).map((t, i) => t - times[i]!));
    expect(times.length).toBeGreaterThan(5);
    expect(silence, "longest silence between the gated viewer's frames during the flood (ms)").toBeLessThan(1000);
    // Both replay to the pane's last screen.
    const tmuxScreen = w.world.tmux
      .run(['capture-pane', '-p', '-t', pane])
      .replace(/\n$/, '')
      .split('\n')
      .map((l) => l.trimEnd());
    for (const k of ['gated', 'ungated'] as const) {
      const term = new Terminal({ cols: 120, rows: 40, allowProposedApi: true });
      await new Promise<void>((r) => term.write(Buffer.concat(got[k]), r));
      const screen = Array.from(
        { length: tmuxScreen.length },
        (_, i) =>
          term.buffer.active
            .getLine(term.buffer.active.viewportY + i)
            ?.translateToString(true)
            .trimEnd() ?? '',
      );
      expect(screen, k).toEqual(tmuxScreen);
      term.dispose();
    }
    hubs.gated.closeAll(owner);
    hubs.ungated.closeAll(owner);
  });

  it('closing a viewer ends only its own attach client; the seat keeps running', async () => {
    const c = await WireClient.open(w.serve);
    const t = (await c.call('terminal.open', { seat: 'lead@live', cols: 80, rows: 24 })).term;
    const pid = w.serve.ctx.terminals.inspect(t)!.pid;
    expect(await c.call('terminal.close', { term: t })).toMatchObject({ ok: true });
    await waitFor(
      () => {
        try {
          process.kill(pid, 0);
          return false;
        } catch {
          return true;
        }
      },
      { what: 'attach client gone' },
    );
    expect(
      w.world
        .sessions()
        .map((s) => s.seat)
        .sort(),
    ).toEqual(['calm@live', 'flood@live', 'lead@live']);
    c.close();
  });
});
