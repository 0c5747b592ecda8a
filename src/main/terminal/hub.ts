import { FRAME, TERM_ID_MAX, encodeFrame } from '../../shared/contract/app';
import { fail, type Result } from '../../shared/errors';
import { dispatch } from '../engine/api';
import type { Engine } from '../engine/engine';
import { hostOfServer } from '../engine/tmux/identity';
import { FlowControl, OutputBatcher, PtyHold, READ_GAP_MS, ReadGate, realTimers, type Timers } from './flow';
import { endablePty, livePty, viewerEnv, type PtyLike, type SpawnPty } from './pty';

/**
 * Live terminals. Each viewer is its own `tmux attach-session -f ignore-size` client in a node-pty,
 * not a control-mode client: tmux renders the pane for that client's size, redraws the whole
 * screen on attach (a new or restored viewer needs no replay), and throttles a client that stops
 * reading without ever blocking the pane or other clients (a paused viewer cannot stall a seat).
 *
 * Size: `ignore-size` keeps every Rigdesk viewer from resizing the window by itself. One viewer
 * per seat is the size owner (the one that most recently opened or typed into it); only its
 * settled size is applied with `resize-window`. Other viewers see the pane at the owner's size,
 * clipped or padded by tmux, and never resize it, so two windows showing one seat cannot fight.
 */

interface View {
  id: number;
  owner: object;
  seat: string;
  tmuxPrefix: string[];
  sessionId: string;
  /** The seat's tmux server key; a remote one is resized through its host's connection. */
  server?: string;
  pty: PtyLike;
  batcher: OutputBatcher;
  flow: FlowControl;
  gate: ReadGate;
  cols: number;
  rows: number;
  closed: boolean;
}

export interface ViewSink {
  frame(bytes: Uint8Array): void;
  exit(term: number, reason: string): void;
}

/**
 * Live terminals one window connection may hold at once. Each is a pty and a tmux client; the
 * window shows at most 9 panes live (a 3x3 grid) and parks the rest, so this leaves room for panes
 * opening as others close, and stops a connection from making processes without end.
 */
export const MAX_TERMINALS_PER_CONNECTION = 32;

export class TerminalHub {
  private nextId = 1;
  private readonly views = new Map<number, View>();
  private readonly sizeOwner = new Map<string, number>();
  /** Opens under way per connection: counted with its live views, so a burst cannot pass the cap. */
  private readonly opening = new Map<object, number>();

  constructor(
    private readonly engine: Engine,
    private readonly spawnPty: SpawnPty = livePty,
    private readonly timers: Timers = realTimers,
    /** How often a viewer's pty may be read (0: as fast as it gives; a test compares both). */
    private readonly readGapMs = READ_GAP_MS,
    private readonly maxPerConnection = MAX_TERMINALS_PER_CONNECTION,
  ) {}

  async open(
    owner: object,
    seat: string,
    cols: number,
    rows: number,
    sink: ViewSink,
  ): Promise<Result<{ term: number; seat: string }>> {
    const held = this.heldBy(owner);
    if (held >= this.maxPerConnection)
      return fail(
        'TERMINAL_LIMIT',
        `this window already has ${held} live terminals, the most one connection may hold (${this.maxPerConnection})`,
        {
          hint: 'Close or park a pane (a smaller layout), then open this seat again.',
          evidence: { seat, live: held, limit: this.maxPerConnection },
        },
      );
    this.opening.set(owner, (this.opening.get(owner) ?? 0) + 1);
    let counted = true;
    // Once its view is registered it counts as a view: no longer as an open under way.
    const registered = () => {
      if (!counted) return;
      counted = false;
      const left = (this.opening.get(owner) ?? 1) - 1;
      if (left > 0) this.opening.set(owner, left);
      else this.opening.delete(owner);
    };
    try {
      return await this.openView(owner, seat, cols, rows, sink, registered);
    } finally {
      registered();
    }
  }

  /** Live views and opens under way of one connection. */
  private heldBy(owner: object): number {
    let n = this.opening.get(owner) ?? 0;
    for (const v of this.views.values()) if (v.owner === owner) n += 1;
    return n;
  }

  private async openView(
    owner: object,
    seat: string,
    cols: number,
    rows: number,
    sink: ViewSink,
    registered: () => void,
  ): Promise<Result<{ term: number; seat: string }>> {
    const at = await dispatch(this.engine, 'attach', { seat });
    if (!at.ok) return at;
    const argv = at.argv as string[];
    const server = typeof at.server === 'string' ? at.server : undefined;
    const remote =
      server !== undefined && hostOfServer(server) !== 'local'
        ? this.engine.hosts.get(hostOfServer(server))
        : undefined;
    const sessionId = typeof at.sessionId === 'string' ? at.sessionId : argv[argv.length - 1]!;
    const id = this.nextId;
    this.nextId = this.nextId >= TERM_ID_MAX ? 1 : this.nextId + 1;
    let pty: PtyLike;
    try {
      // A remote seat: ssh + tmux attach on its host, through the same batching and flow control.
      const viewer = remote ? remote.viewerArgv(sessionId) : [...argv, '-f', 'ignore-size'];
      pty = this.spawnPty(viewer[0]!, viewer.slice(1), { cols, rows, env: viewerEnv(this.engine.deps.env) });
      // A live attach client is the engine's process too: it ends with the engine (children.ts).
      if (this.spawnPty === livePty)
        this.engine.deps.children.track(endablePty(pty), 'attach client (window terminal)');
    } catch (e) {
      return fail('TMUX_FAILED', `cannot start a terminal for ${seat}: ${(e as Error).message}`);
    }
    const hold = new PtyHold(
      () => pty.pause(),
      () => pty.resume(),
    );
    const view: View = {
      id,
      owner,
      seat: at.seat as string,
      tmuxPrefix: argv.slice(0, argv.indexOf('attach-session')),
      sessionId,
      ...(remote ? { server } : {}),
      pty,
      cols,
      rows,
      closed: false,
      batcher: new OutputBatcher((batch) => {
        view.flow.sent(batch.length);
        sink.frame(encodeFrame(FRAME.OUTPUT, id, batch));
      }, this.timers),
      flow: new FlowControl(
        () => hold.set('flow', true),
        () => hold.set('flow', false),
      ),
      gate: new ReadGate((held) => hold.set('gap', held), this.timers, this.readGapMs),
    };
    this.views.set(id, view);
    registered();
    // At most one read a frame (ReadGate): in a flood tmux then skips screens for this client
    // instead of rendering every line for it; flow control throttles a window that falls behind.
    pty.onData((d) => {
      if (view.closed) return;
      view.gate.read();
      view.batcher.push(d);
    });
    pty.onExit((e) => {
      if (view.closed) return;
      view.batcher.flushNow();
      this.drop(view);
      sink.exit(id, `the tmux client ended (exit ${e.exitCode})`);
    });
    await this.takeSize(view);
    return { ok: true, term: id, seat: view.seat };
  }

  /** Keystrokes: bytes as typed; typing also makes this viewer the seat's size owner. */
  input(owner: object, term: number, bytes: Uint8Array): void {
    const v = this.mine(owner, term);
    if (!v) return;
    v.pty.write(Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength));
    if (this.sizeOwner.get(v.seat) !== v.id) void this.takeSize(v);
  }

  ack(owner: object, term: number, bytes: number): void {
    this.mine(owner, term)?.flow.acked(bytes);
  }

  async resize(owner: object, term: number, cols: number, rows: number): Promise<Result> {
    const v = this.mine(owner, term);
    if (!v) return fail('BAD_USAGE', `no terminal ${term} on this connection`);
    v.cols = cols;
    v.rows = rows;
    v.pty.resize(cols, rows);
    if (this.sizeOwner.get(v.seat) === v.id) await this.applySize(v);
    return { ok: true };
  }

  close(owner: object, term: number): Result {
    const v = this.mine(owner, term);
    if (!v) return fail('BAD_USAGE', `no terminal ${term} on this connection`);
    this.drop(v);
    return { ok: true };
  }

  closeAll(owner: object): void {
    for (const v of [...this.views.values()]) if (v.owner === owner) this.drop(v);
  }

  /** For tests and the bench: who owns a seat's size, and a view's flow state. */
  inspect(
    term: number,
  ):
    | { seat: string; pid: number; sizeOwner: boolean; flow: { unacked: number; paused: boolean; resumes: number } }
    | undefined {
    const v = this.views.get(term);
    return v && { seat: v.seat, pid: v.pty.pid, sizeOwner: this.sizeOwner.get(v.seat) === v.id, flow: v.flow.state };
  }

  get count(): number {
    return this.views.size;
  }

  private mine(owner: object, term: number): View | undefined {
    const v = this.views.get(term);
    return v && v.owner === owner && !v.closed ? v : undefined;
  }

  private async takeSize(v: View): Promise<void> {
    this.sizeOwner.set(v.seat, v.id);
    await this.applySize(v);
  }

  /**
   * The window takes the viewer's size less tmux's status lines: the viewer shows those too, and
   * a pane as tall as the whole viewer would have its top row panned out of sight.
   */
  private async applySize(v: View): Promise<void> {
    const st = await this.tmux(v, ['display-message', '-p', '-t', v.sessionId, '#{status}']);
    const status = statusLines(st.stdout.trim());
    await this.tmux(v, [
      'resize-window',
      '-t',
      v.sessionId,
      '-x',
      String(v.cols),
      '-y',
      String(Math.max(1, v.rows - status)),
    ]);
  }

  private tmux(v: View, args: string[]): Promise<{ stdout: string }> {
    if (v.server) return this.engine.client(v.server).run(args);
    return this.engine.deps.exec(v.tmuxPrefix[0]!, [...v.tmuxPrefix.slice(1), ...args], {
      env: viewerEnv(this.engine.deps.env),
      timeoutMs: 5000,
    });
  }

  /** Ends our own attach client by its pty (never the seat's session) and forgets the view. */
  private drop(v: View): void {
    if (v.closed) return;
    v.closed = true;
    v.batcher.dispose();
    v.gate.dispose();
    this.views.delete(v.id);
    if (this.sizeOwner.get(v.seat) === v.id) this.sizeOwner.delete(v.seat);
    try {
      v.pty.kill();
    } catch {
      /* already exited */
    }
  }
}

/** tmux's `status` option as a number of lines: off, on (one), or 2 to 5. */
export function statusLines(value: string): number {
  if (value === 'off' || value === '0' || value === '') return 0;
  if (value === 'on') return 1;
  const n = Number(value);
  return Number.isInteger(n) && n >= 1 && n <= 5 ? n : 1;
}
