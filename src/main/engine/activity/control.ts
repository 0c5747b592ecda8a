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
  constructor(
    /** Which session this watch is for ("<server key> <$id>"): a new occupant needs a new watch. */
    readonly key: string,
    private readonly server: TmuxServerRef,
    private readonly sessionId: string,
    private readonly onDirty: (paneId: string) => void,
    private readonly env: NodeJS.ProcessEnv,
  ) {}

  start(): void {
    const env = { ...this.env };
    delete env.TMUX;
    delete env.TMUX_PANE;
    this.child = spawn('tmux', ['-u', ...serverArgs(this.server), '-C', 'attach-session', '-r', '-f', 'ignore-size', '-t', this.sessionId], { stdio: ['pipe', 'pipe', 'ignore'], env });
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

  /** After a look at the pane: let its next output wake us again. */
  rearm(paneId: string): void {
    if (!this.muted.delete(paneId)) return;
    this.command(`refresh-client -A '${paneId}:on'`);
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

  private command(line: string): void {
    if (this.alive) this.child!.stdin!.write(line + '\n');
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
      } else if (line.startsWith('%exit')) {
        this.onDirty('*');
      }
    }
  }
}
