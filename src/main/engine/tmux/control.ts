import { spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { Socket } from 'node:net';
import type { ChildSet } from '../children';
import type { ExecResult } from '../deps';
import { type Block, ControlStream } from './control-stream';
import { type ControlRunOptions, type ControlTarget, failure } from './control-target';
import type { Live, Request } from './control-state';
import { afterIo, leftBy, settledBy } from './control-timing';
import { controlLine, SOURCE_STDIN } from './quote';

const MAX_TRIES = 3;
const HANDSHAKE = ['display-message', '-p', '#{pid} #{client_flags}'];

/**
 * One held tmux control-mode client (`tmux -C attach-session -f ignore-size,no-output`) to one
 * server: every engine command to that server is a line written to it, answered with no process
 * spawned (docs/architecture.md, tmux). Held through a pipe, not a pty: a pty's line discipline
 * echoes each command, turns `\n` into `\r\n` and cuts a line at 4095 bytes, and a paste's
 * `set-buffer` line must reach tmux byte for byte however long it is.
 *
 * Matching: a line may run several commands (`a ; b`, or `if-shell`'s chosen command), each in its
 * own `%begin`/`%end` frame, so after each line a sentinel line (`display-message -p <nonce>:<n>`)
 * is written with it; tmux runs a client's lines strictly in order, so every frame before the
 * sentinel's belongs to that line. The answer reads like a one-shot's: frame output on stdout, an
 * `%error` frame's text on stderr and exit code 1.
 *
 * Drops: when the client goes (server killed or restarted, its session destroyed, a timeout), a
 * line tmux had started gets a clear error, never a later frame; a line tmux never started (no
 * `%begin` seen for it) is sent again on the next client only if that client's server has the same
 * pid, so nothing meant for one server runs on its successor.
 */
export class ControlConnection {
  private live?: Live;
  private connecting = false;
  private waiting: Request[] = [];
  private closed = false;
  /** Set once a client proved it cannot serve (no `no-output` on this tmux): one-shot from then on. */
  private unusable?: string;
  /** One-shot commands of this connection that create a session, still running (creates asked for meanwhile wait). */
  private creating = 0;
  /**
   * One-shot commands of this connection still running. No client is started meanwhile: one
   * that makes or ends a session while a control client identifies itself crashes tmux 3.3a
   * (control-timing.ts), and a restore after a reboot starts the server with one seat's launch
   * while the next seat's commands ask for a client.
   */
  private oneShots = 0;
  /** quietWhile calls running: nothing is written and no client started meanwhile. */
  private quiet = 0;
  /** A dropped client's exit, until it came: its replacement waits for it (control-timing.ts says why). */
  private leaving?: Promise<void>;
  /** Client processes started so far. */
  spawns = 0;
  constructor(
    private readonly target: ControlTarget,
    /** The engine's processes: a client is tracked there until it exits, and ended with the engine. */
    private readonly children?: ChildSet,
  ) {}

  get connected(): boolean {
    return this.live?.ready === true;
  }

  /** The client process's pid while one runs (the benches count its CPU with the engine's). */
  get pid(): number | undefined {
    return this.live?.child.pid;
  }

  get serverPid(): number | undefined {
    return this.live?.ready ? this.live.serverPid : undefined;
  }

  run(args: readonly string[], opts: ControlRunOptions): Promise<ExecResult> {
    const parsed = controlLine(args);
    if (!parsed.ok) return Promise.resolve(failure(parsed.why));
    return new Promise((done) => {
      const req: Request = {
        args,
        line: parsed.line,
        opts,
        done,
        settled: false,
        started: false,
        failed: false,
        stdout: '',
        stderr: '',
        tries: 0,
      };
      req.timer = setTimeout(() => afterIo(() => this.expire(req)), opts.timeoutMs);
      this.waiting.push(req);
      this.pump();
    });
  }

  /**
   * Ends the client; whatever is unanswered gets an error. The client is detached (an empty line:
   * tmux lets a control client go at once, even behind a stuck command) and its stdin closed, while
   * its output is still read, so tmux can flush it and let the client exit. The engine's ChildSet
   * then waits for that exit and ends the process by its pid if it does not come (children.ts).
   */
  close(): void {
    this.closed = true;
    const live = this.live;
    if (live) {
      this.live = undefined;
      live.exited = true;
      clearTimeout(live.attachTimer);
      for (const { req } of live.inFlight.splice(0)) this.settle(req, failure('the engine closed its tmux client'));
      try {
        live.child.stdin?.end('\n');
      } catch {
        /* gone */
      }
    }
    for (const r of this.waiting.splice(0)) this.settle(r, failure('the engine closed its tmux client'));
  }

  /**
   * Runs `fn` (another control client of the engine's starting: it identifies itself meanwhile,
   * control-timing.ts) once tmux has answered every line this connection sent and no one-shot of
   * its runs, and holds new lines and a new client of its own until `fn` ends. Waits at most 2 s.
   */
  async quietWhile<T>(fn: () => Promise<T>): Promise<T> {
    this.quiet += 1;
    try {
      await settledBy(() => this.settled());
      return await fn();
    } finally {
      this.quiet -= 1;
      this.pump();
    }
  }

  /** Nothing of this connection's under way in tmux: no line unanswered, no one-shot, no client coming or going. */
  private settled(): boolean {
    const live = this.live;
    return !live?.inFlight.length && (!live || live.ready) && !this.connecting && !this.leaving && this.oneShots === 0;
  }

  private pump(): void {
    if (this.closed) {
      for (const r of this.waiting.splice(0)) this.settle(r, failure('the engine closed its tmux client'));
      return;
    }
    const live = this.live;
    if (this.quiet) return;
    if (live?.ready) {
      const batch = this.waiting.splice(0);
      if (batch.length) this.write(live, batch);
      return;
    }
    if (live || this.connecting || !this.waiting.length) return;
    if (this.unusable) this.serveWithoutClient(this.unusable);
    else if (this.oneShots === 0) void this.connect();
  }

  private write(live: Live, batch: Request[]): void {
    let text = '';
    for (const req of batch) {
      req.serverPid ??= live.serverPid;
      req.tries += 1;
      const seq = ++live.seq;
      live.inFlight.push({ req, seq });
      text += `${req.line}\ndisplay-message -p ${live.nonce}:${seq}\n`;
    }
    live.child.stdin?.write(text);
  }

  private async connect(): Promise<void> {
    const shut = this.target.gate?.();
    if (shut) {
      for (const r of this.waiting.splice(0)) this.settle(r, shut);
      return;
    }
    this.connecting = true;
    if (this.leaving) await this.leaving;
    const seen = await this.target.probe().catch(() => 'unknown' as const);
    if (this.closed) {
      this.connecting = false;
      return this.pump();
    }
    if (seen === 'absent') {
      this.connecting = false;
      this.serveWithoutClient(this.target.absentText);
      return;
    }
    const [file, ...argv] = this.target.argv;
    const child = spawn(file!, argv, { stdio: ['pipe', 'pipe', 'pipe'], env: this.target.env });
    this.children?.trackChild(child, `tmux control client of ${this.target.key}`, () => child.stdin?.end('\n'));
    this.spawns += 1;
    this.target.onSpawn?.();
    const live: Live = {
      child,
      nonce: randomBytes(8).toString('hex'),
      seq: 0,
      inFlight: [],
      attached: false,
      ready: false,
      serverPid: 0,
      stderr: '',
      exited: false,
    };
    this.live = live;
    this.connecting = false;
    // Held, not holding: an idle client never keeps the engine's process alive (a pending
    // command's timer does), and when the process ends its stdin closes and tmux detaches it.
    child.unref();
    for (const s of [child.stdin, child.stdout, child.stderr]) if (s instanceof Socket) s.unref();
    const stream = new ControlStream({
      begin: () => {
        const head = live.inFlight[0];
        if (head) head.req.started = true;
      },
      block: (b) => (live.attached ? this.block(live, b) : this.attachedNow(live, b)),
      exit: () => undefined,
    });
    child.stdout!.setEncoding('utf8');
    child.stdout!.on('data', (d: string) => stream.push(d));
    child.stderr!.setEncoding('utf8');
    child.stderr!.on('data', (d: string) => (live.stderr = (live.stderr + d).slice(-4096)));
    child.stdin!.on('error', () => undefined);
    child.on('error', (e) => {
      live.stderr ||= e.message;
      this.drop(live, e.message);
    });
    child.on('close', (code) => {
      live.exitCode = code;
      this.drop(live, live.stderr.trim() || 'the tmux client exited');
    });
    live.attachTimer = setTimeout(() => afterIo(() => this.drop(live, 'the tmux client did not attach')), 5_000);
  }

  /**
   * The first frame is the attach command's own. Nothing is written before it ends: tmux reads a
   * control client's stdin from the start, and a line it runs before the attach runs with no
   * session (and without the client's flags), after which tmux lets the unattached client go.
   */
  private attachedNow(live: Live, b: Block): void {
    clearTimeout(live.attachTimer);
    if (b.failed) {
      const why = b.lines.join('\n') || 'the tmux client could not attach';
      // A tmux older than 3.2 does not know the client flags: the one-shot path from then on.
      if (/unknown flag|invalid flag|ignore-size|no-output/.test(why)) this.unusable = why;
      this.drop(live, why);
      return;
    }
    live.attached = true;
    const hello = this.handshake(live);
    hello.timer = setTimeout(
      () => afterIo(() => hello.settled || this.drop(live, 'the tmux client did not answer')),
      hello.opts.timeoutMs,
    );
    this.write(live, [hello]);
  }

  /** The first line on a new client: the server's pid, and proof that pane output is off for it. */
  private handshake(live: Live): Request {
    return {
      args: HANDSHAKE,
      line: (controlLine(HANDSHAKE) as { line: string }).line,
      opts: { timeoutMs: 5_000 },
      settled: false,
      started: false,
      failed: false,
      stdout: '',
      stderr: '',
      tries: 0,
      done: (r) => {
        const [pid, flags] = r.stdout.trim().split('\n').pop()!.split(' ');
        const f = (flags ?? '').split(',');
        if (r.code === 0 && f.includes('control-mode') && !f.includes('no-output'))
          this.unusable = `this tmux does not switch pane output off for a control client (flags: ${flags})`;
        if (r.code !== 0 || this.unusable || !/^\d+$/.test(pid ?? '')) {
          live.stderr =
            this.unusable ?? (r.stderr.trim() || `the tmux client did not start cleanly: ${r.stdout.trim()}`);
          this.drop(live, live.stderr);
          return;
        }
        live.serverPid = Number(pid);
        live.ready = true;
        this.admit(live);
      },
    };
  }

  /** Requests kept from a dropped client run here only if this is the same server. */
  private admit(live: Live): void {
    for (const r of this.waiting.splice(0)) {
      if (r.serverPid !== undefined && r.serverPid !== live.serverPid && !r.opts.startServer) {
        this.settle(
          r,
          failure(
            `the tmux server ${this.target.key} restarted (pid ${r.serverPid}, now ${live.serverPid}) before the command ran; it was not run`,
          ),
        );
      } else this.waiting.push(r);
    }
    this.pump();
  }

  private block(live: Live, b: Block): void {
    const head = live.inFlight[0];
    if (!head) return; // a frame nobody asked for (a hook run at attach)
    const sentinel = `${live.nonce}:`;
    if (!b.failed && b.lines.length === 1 && b.lines[0]!.startsWith(sentinel)) {
      if (b.lines[0] !== `${sentinel}${head.seq}`) {
        // Out of step with tmux: no answer from here on can be trusted to be whose it is.
        this.drop(live, 'the tmux client answered out of order');
        return;
      }
      live.inFlight.shift();
      const r = head.req;
      this.settle(r, { code: r.failed ? 1 : 0, signal: null, stdout: r.stdout, stderr: r.stderr, timedOut: false });
      return;
    }
    const r = head.req;
    if (b.failed) {
      r.failed = true;
      // A parse error is what tmux's argv reader reports without the prefix.
      const text = b.lines.join('\n');
      r.stderr += `${text.startsWith('parse error: ') ? text.slice(13) : text}\n`;
    } else for (const l of b.lines) r.stdout += `${l}\n`;
  }

  private drop(live: Live, why: string): void {
    if (live.exited) return;
    live.exited = true;
    clearTimeout(live.attachTimer);
    if (this.live === live) this.live = undefined;
    // Also for a client that exited by itself: the server lets it go on a later turn. One that
    // never attached gets no detach notice sent about it, and may never have reached the server.
    const leaving: Promise<void> = leftBy(live.child, live.attached ? this.target.oneShot : undefined).then(
      () => void (this.leaving === leaving && (this.leaving = undefined)),
    );
    this.leaving = leaving;
    try {
      live.child.stdin?.end();
      live.child.kill('SIGTERM');
    } catch {
      /* gone */
    }
    const keep: Request[] = [];
    for (const { req } of live.inFlight.splice(0)) {
      if (req.args === HANDSHAKE) {
        if (req.timer) clearTimeout(req.timer);
        req.settled = true;
        continue;
      }
      if (req.settled) continue;
      if (req.started)
        this.settle(
          req,
          failure(
            `the tmux client of ${this.target.key} went away while the command ran (${why}); it may or may not have taken effect`,
          ),
        );
      else if (req.tries >= MAX_TRIES)
        this.settle(req, failure(`the tmux client of ${this.target.key} kept going away (${why})`));
      else keep.push(req);
    }
    this.waiting.unshift(...keep);
    if (!live.ready && this.waiting.length) {
      // The client never came up: the host out of reach, no server, or none to attach to.
      const cut = this.target.unreachable?.(live.exitCode ?? null, why);
      if (cut) for (const r of this.waiting.splice(0)) this.settle(r, cut);
      else this.serveWithoutClient(why);
      return;
    }
    this.pump();
  }

  /**
   * No client could be held: a server that is not running answers as the one-shot would (and a
   * command that starts one runs one-shot); any other failure to attach (a server with no
   * session to attach to) leaves the one-shot path to answer.
   */
  private serveWithoutClient(why: string): void {
    const absent = /no server running on|error connecting to|no sessions/.test(why) || why === this.target.absentText;
    const serverGone = /no server running on|error connecting to/.test(why) || why === this.target.absentText;
    // With no server, one create starts it; creates asked for meanwhile (launches in lanes) wait
    // for it and then go through the client, not one server start each.
    const later: Request[] = [];
    for (const r of this.waiting.splice(0)) {
      if (serverGone && r.opts.startServer && this.creating > 0) {
        later.push(r);
        continue;
      }
      if (serverGone && !r.opts.startServer) {
        const text =
          why.split('\n').find((l) => /no server running on|error connecting to/.test(l)) ?? this.target.absentText;
        this.settle(r, { code: 1, signal: null, stdout: '', stderr: `${text}\n`, timedOut: false });
        continue;
      }
      if (!absent && r.serverPid !== undefined) {
        this.settle(r, failure(`the tmux client of ${this.target.key} could not be started again (${why})`));
        continue;
      }
      const creates = r.opts.startServer !== undefined;
      if (creates) this.creating += 1;
      this.oneShots += 1;
      const { input, timeoutMs } = r.opts;
      const args = r.opts.startServer ?? (input === undefined ? r.args : SOURCE_STDIN);
      void this.target
        .oneShot(args, input === undefined ? { timeoutMs } : { timeoutMs, input })
        .catch((e: unknown) => failure(`tmux could not be run: ${String(e)}`))
        .then((res) => {
          this.settle(r, res);
          this.oneShots -= 1;
          if (creates) this.creating -= 1;
          this.pump();
        });
    }
    this.waiting.unshift(...later);
  }

  private expire(r: Request): void {
    if (r.settled) return;
    const live = this.live;
    const at = live?.inFlight.findIndex((f) => f.req === r) ?? -1;
    const i = this.waiting.indexOf(r);
    if (i >= 0) this.waiting.splice(i, 1);
    this.settle(r, { code: null, signal: null, stdout: r.stdout, stderr: r.stderr, timedOut: true });
    // The oldest line is stuck: every later one waits behind it in tmux, so the client is
    // replaced (tmux drops the queue of a client that goes) and later lines go again. A probe's
    // short wait is no such verdict: its late answer is read and dropped in turn.
    if (live && at === 0 && !r.opts.keepClient) this.drop(live, 'a command timed out');
  }

  private settle(r: Request, res: ExecResult): void {
    if (r.settled) return;
    r.settled = true;
    if (r.timer) clearTimeout(r.timer);
    r.done(res);
  }
}
