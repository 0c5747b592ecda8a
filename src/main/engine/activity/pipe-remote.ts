import { spawn, type ChildProcess } from 'node:child_process';
import type { Clock } from '../deps';
import type { ChildSet } from '../children';
import { pipeCommand, type PipeStart } from './pipe';

/**
 * "This pane printed something" for a seat on another host, by the same `pipe-pane` as locally
 * (pipe.ts says why not a control client): on the host, one `sh` over the shared ssh connection
 * makes a fifo, sets the pane's pipe into it under the same ours-or-none rule, says which on its
 * first line, then copies the fifo to ssh. The bytes cross ssh raw (a control client's `%output`
 * is about 1.8 times as many), and tmux on the host escapes nothing.
 *
 * The fifo lives in `/tmp/rigdesk-watch-<uid>` on the host under a name fixed per (server, pane)
 * (made afresh each time). When ssh ends, `cat` there dies at its next write, the fifo loses its
 * reader and the pipe's writer ends at the pane's next output.
 */
const FIFO = '@FIFO@';
const SCRIPT = [
  'd="/tmp/rigdesk-watch-$(id -u)"',
  'mkdir -p "$d" && chmod 700 "$d" || { echo rigdesk:failed mkdir; exit 1; }',
  'f="$d/$1.fifo"; pane="$2"; pipe="$3"; shift 3',
  'rm -f "$f"; mkfifo -m 600 "$f" || { echo rigdesk:failed mkfifo; exit 1; }',
  // Read-write while the pipe is set, so the writer's open never waits for us.
  'exec 3<>"$f"',
  // The fifo's path is known only here; it holds no character sed or tmux would read specially.
  `pipe=$(printf '%s' "$pipe" | sed "s|${FIFO}|$f|g")`,
  'out=$("$@" if-shell -F -t "$pane" "#{pane_pipe}" "display-message -p rigdesk:piped-already" "$pipe" 2>&1) || { rm -f "$f"; echo "rigdesk:failed $out"; exit 1; }',
  'case "$out" in *rigdesk:piped-already*) rm -f "$f"; echo rigdesk:foreign-pipe; exit 0;; esac',
  // The writer's first byte says it has the fifo open (ten seconds at most: then this whole
  // process group goes, dd included, since dd's own copy of fd 3 would keep it waiting forever).
  // The watchdog holds neither the fifo nor ssh's stdout, or their ends would wait for its sleep.
  '( exec 3<&- </dev/null >/dev/null 2>&1; sleep 10; kill -TERM 0 ) & w=$!',
  'dd bs=1 count=1 <&3 >/dev/null 2>&1; kill $w 2>/dev/null',
  // Then read-only, so the writer's end (the pane died, the pipe was replaced or closed) ends
  // this script, and ssh with it.
  'exec 4<"$f"; exec 3<&-',
  'echo rigdesk:watching',
  'cat <&4; rm -f "$f"',
].join('\n');

/** `sh`'s arguments on the host: `-c SCRIPT sh <name> <pane> <pipe command> tmux -u -L <socket>`. */
export function remotePipeArgs(name: string, paneId: string, tmuxArgv: string[]): string[] {
  if (!/^[0-9a-f]{8,64}$/.test(name) || !/^%\d+$/.test(paneId))
    throw new Error(`unsafe watch name or pane: ${name} ${paneId}`);
  return ['-c', SCRIPT, 'sh', name, paneId, pipeCommand(paneId, FIFO), ...tmuxArgv];
}

export class RemotePipeWatch {
  private child?: ChildProcess;
  private muted = false;
  /** When the pane last printed (ms since the epoch), for holding a look until its output pauses. */
  lastOutputAt?: number;
  private started = false;
  constructor(
    readonly key: string,
    /** The whole local command: ssh … -- <remote command>. */
    private readonly argv: string[],
    private readonly onDirty: () => void,
    private readonly env: NodeJS.ProcessEnv,
    /** The engine's clock: output times are compared with the monitor's. */
    private readonly clock: Clock,
    /** The engine's processes: ssh is tracked there until it exits. */
    private readonly children?: ChildSet,
  ) {}

  start(timeoutMs = 10_000): Promise<PipeStart> {
    const child = spawn(this.argv[0]!, this.argv.slice(1), { stdio: ['ignore', 'pipe', 'ignore'], env: this.env });
    this.child = child;
    this.children?.trackChild(child, 'ssh pane output stream');
    child.on('error', () => undefined);
    return new Promise<PipeStart>((resolve) => {
      let head = '';
      const done = (r: PipeStart) => {
        timer.cancel();
        if (!r.ok) this.stop();
        resolve(r);
      };
      const timer = this.clock.after(timeoutMs, () =>
        done({ ok: false, why: 'failed', detail: 'no answer from the host' }),
      );
      child.once('exit', () => {
        if (!this.started) done({ ok: false, why: 'failed', detail: head.trim() || 'ssh ended' });
        // The pipe's writer ended (or ssh did): news for the next look, which decides again.
        else if (this.child === child) this.onDirty();
      });
      child.stdout!.on('data', (d: Buffer) => {
        if (this.started) return this.printed();
        head += d.toString('latin1');
        const nl = head.indexOf('\n');
        if (nl < 0) return;
        const status = head.slice(0, nl);
        if (status === 'rigdesk:watching') {
          this.started = true;
          done({ ok: true });
          if (head.length > nl + 1) this.printed();
        } else if (status === 'rigdesk:foreign-pipe')
          done({ ok: false, why: 'foreign', detail: 'the pane already pipes its output elsewhere' });
        else done({ ok: false, why: 'failed', detail: status.replace(/^rigdesk:failed ?/, '') });
      });
    });
  }

  get alive(): boolean {
    return this.child !== undefined && this.child.exitCode === null && this.child.signalCode === null;
  }

  rearm(): void {
    this.muted = false;
  }

  stop(): void {
    this.child?.kill('SIGTERM');
    this.child = undefined;
  }

  private printed(): void {
    this.lastOutputAt = this.clock.now();
    if (this.muted) return;
    this.muted = true;
    this.onDirty();
  }
}
