import { spawn, type ChildProcess } from 'node:child_process';
import type { Clock } from '../deps';
import type { ChildSet } from '../children';
import { serverArgs, type TmuxServerRef } from '../tmux/identity';

/** The longest `start` waits for tmux's first word to the client. */
const ATTACH_MS = 2_000;

/**
 * One tmux control-mode client attached (read-only, ignoring size) to one seat's session: the
 * watch for a pane that already has a pipe (a person's, or one an earlier engine left), since a
 * pane has only one and pipe.ts never replaces it. Restart takes it off the pane before a respawn
 * (Ports.beforeRespawn): tmux 3.3a crashes when a control client is behind on a respawned pane. It only
 * tells us that a pane printed something: the first %output of a pane marks the seat dirty once,
 * and further output is ignored until the engine looks at the screen again, so a flood costs one
 * look per pass. Output is never switched off in tmux (`refresh-client -A %p:off`): a control
 * client left behind on a pane is the state in which tmux servers have been seen to crash (tmux
 * 3.3a segfaulted here during a pane's exit with such a client, taking every seat with it), and a
 * client that sees every line cannot miss the one printed while a look runs. The cost is the
 * output's bytes through this pipe.
 */
export class PaneOutputWatch {
  private child?: ChildProcess;
  private buf = '';
  /** Panes that printed since the engine last looked: their output is news only once per look. */
  private muted = new Set<string>();
  /** When the pane last printed (ms since the epoch), for holding a look until its output pauses. */
  lastOutputAt?: number;
  constructor(
    /** Which session this watch is for ("<server key> <$id>"): a new occupant needs a new watch. */
    readonly key: string,
    private readonly server: TmuxServerRef,
    private readonly sessionId: string,
    private readonly onDirty: (paneId: string) => void,
    private readonly env: NodeJS.ProcessEnv,
    /** The engine's clock: output times are compared with the monitor's. */
    private readonly clock: Clock,
    /** The whole command, when the session is on another host (ssh running tmux -C there). */
    private readonly remoteArgv?: string[],
    /** The engine's processes: the client is tracked there until it exits. */
    private readonly children?: ChildSet,
  ) {}

  /**
   * Starts the client; resolves once tmux has written to it (it has finished identifying itself,
   * control-timing.ts), or it ended, or after 2 s.
   */
  start(): Promise<void> {
    const env = { ...this.env };
    delete env.TMUX;
    delete env.TMUX_PANE;
    const argv = this.remoteArgv ?? [
      'tmux',
      '-u',
      ...serverArgs(this.server),
      '-C',
      'attach-session',
      '-r',
      '-f',
      'ignore-size',
      '-t',
      this.sessionId,
    ];
    const child = spawn(argv[0]!, argv.slice(1), { stdio: ['pipe', 'pipe', 'ignore'], env });
    this.child = child;
    this.children?.trackChild(child, 'tmux control client (activity)', () => child.stdin?.end('detach-client\n'));
    this.child.stdout!.setEncoding('utf8');
    this.child.stdout!.on('data', (d: string) => this.read(d));
    this.child.on('error', () => undefined);
    this.child.stdin!.on('error', () => undefined);
    return new Promise<void>((done) => {
      const cap = setTimeout(done, ATTACH_MS).unref();
      const end = () => (clearTimeout(cap), done());
      child.stdout!.once('data', end);
      child.once('close', end);
    });
  }

  get pid(): number | undefined {
    return this.child?.pid;
  }

  get alive(): boolean {
    return this.child !== undefined && this.child.exitCode === null && this.child.signalCode === null;
  }

  /** Before a look at the session's panes: their next output is news again. */
  rearm(): void {
    this.muted.clear();
  }

  /**
   * Detaches and waits until the client is gone (over ssh: until the remote client has exited and
   * ssh with it), so tmux holds no offsets for it any more; killed after `timeoutMs`.
   */
  async detach(timeoutMs = 2000): Promise<void> {
    const child = this.child;
    if (!child || !this.alive) return this.stop();
    const gone = new Promise<void>((r) => child.once('exit', () => r()));
    try {
      child.stdin!.end('detach-client\n');
    } catch {
      /* gone */
    }
    await Promise.race([gone, this.clock.sleep(timeoutMs)]);
    this.stop();
  }

  stop(): void {
    if (!this.child) return;
    try {
      this.child.stdin!.end('detach-client\n');
    } catch {
      /* gone */
    }
    this.child.kill('SIGTERM');
    this.child = undefined;
  }

  private read(chunk: string): void {
    this.buf += chunk;
    let nl: number;
    while ((nl = this.buf.indexOf('\n')) >= 0) {
      const line = this.buf.slice(0, nl);
      this.buf = this.buf.slice(nl + 1);
      if (line.startsWith('%output ') || line.startsWith('%extended-output ')) {
        const pane = line.split(' ', 3)[1]!;
        this.lastOutputAt = this.clock.now();
        if (!this.muted.has(pane)) {
          this.muted.add(pane);
          this.onDirty(pane);
        }
      } else if (line.startsWith('%exit')) {
        this.onDirty('*');
      } else if (line.startsWith('%session-changed')) {
        // Attached: what the panes printed before now reached nobody, so the seat is looked at once.
        this.onDirty('*');
      }
    }
  }
}
