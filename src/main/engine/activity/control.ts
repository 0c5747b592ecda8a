import { spawn, type ChildProcess } from 'node:child_process';
import { serverArgs, type TmuxServerRef } from '../tmux/identity';

/**
 * One tmux control-mode client attached (read-only, ignoring size) to one seat's session. It only
 * tells us that a pane printed something: on the first %output of a pane, its output is switched
 * off until the engine has looked at the screen and switches it on again, so a flood costs one
 * notification per look, not a copy of the flood.
 */
export class PaneOutputWatch {
  private child?: ChildProcess;
  private buf = '';
  private muted = new Set<string>();
  /** Callers waiting for tmux to confirm one of our commands, in the order they were sent. */
  private replies: (() => void)[] = [];
  constructor(
    /** Which session this watch is for ("<server key> <$id>"): a new occupant needs a new watch. */
    readonly key: string,
    private readonly server: TmuxServerRef,
    private readonly sessionId: string,
    private readonly onDirty: (paneId: string) => void,
    private readonly env: NodeJS.ProcessEnv,
    /** The whole command, when the session is on another host (ssh running tmux -C there). */
    private readonly remoteArgv?: string[],
  ) {}

  start(): void {
    const env = { ...this.env };
    delete env.TMUX;
    delete env.TMUX_PANE;
    const argv = this.remoteArgv ?? ['tmux', '-u', ...serverArgs(this.server), '-C', 'attach-session', '-r', '-f', 'ignore-size', '-t', this.sessionId];
    this.child = spawn(argv[0]!, argv.slice(1), { stdio: ['pipe', 'pipe', 'ignore'], env });
    this.child.stdout!.setEncoding('utf8');
    this.child.stdout!.on('data', (d: string) => this.read(d));
    this.child.on('error', () => undefined);
    this.child.stdin!.on('error', () => undefined);
  }

  get pid(): number | undefined {
    return this.child?.pid;
  }

  get alive(): boolean {
    return this.child !== undefined && this.child.exitCode === null && this.child.signalCode === null;
  }

  /**
   * Before a look at the session's panes: let their next output wake us again. It resolves once
   * tmux has switched output back on, so anything printed after the look began is heard; switching
   * it on only after the look would lose output printed while the look ran (a prompt returning).
   * The timeout only guards against a reply that never comes (over ssh a loaded host answers late).
   */
  async rearm(timeoutMs = 1000): Promise<void> {
    if (this.muted.size === 0 || !this.alive) return;
    const panes = [...this.muted];
    this.muted.clear();
    await new Promise<void>((resolve) => {
      const t = setTimeout(resolve, timeoutMs);
      panes.forEach((p, i) =>
        this.command(`refresh-client -A '${p}:on'`, i < panes.length - 1 ? undefined : () => {
          clearTimeout(t);
          resolve();
        }),
      );
    });
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

  private command(line: string, onReply: () => void = () => undefined): void {
    if (!this.alive) return;
    this.replies.push(onReply);
    this.child!.stdin!.write(line + '\n');
  }

  private read(chunk: string): void {
    this.buf += chunk;
    let nl: number;
    while ((nl = this.buf.indexOf('\n')) >= 0) {
      const line = this.buf.slice(0, nl);
      this.buf = this.buf.slice(nl + 1);
      if (line.startsWith('%output ') || line.startsWith('%extended-output ')) {
        const pane = line.split(' ', 3)[1]!;
        if (!this.muted.has(pane)) {
          this.muted.add(pane);
          this.command(`refresh-client -A '${pane}:off'`);
          this.onDirty(pane);
        }
      } else if ((line.startsWith('%end ') || line.startsWith('%error ')) && line.endsWith(' 1')) {
        // A reply to a command of ours (flag 1); tmux answers them in order.
        this.replies.shift()?.();
      } else if (line.startsWith('%exit')) {
        this.onDirty('*');
      }
    }
  }
}
