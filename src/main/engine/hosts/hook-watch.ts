import { spawn, type ChildProcess } from 'node:child_process';
import { runtimeById, seatHookHome } from '../runtimes';
import type { ChildSet } from '../children';
import type { SeatRow } from '../store';
import { remoteHooksDir } from './host-files';

/**
 * Activity hooks of seats on another host. Claude's hooks (and Codex's notify) there write each
 * event to `<the seat's config home>/rigdesk-hooks/<seat>.json`, as locally to Rigdesk's own
 * folder; the host's evidence rounds read that file with its age, beside the live-state files.
 * And each writes its seat's name into a fifo in the same folder, which one ssh stream per host
 * reads: the engine hears of the event at once, as it hears of a local hook through inotify,
 * with nothing running on the host at rest. A hook never waits on the fifo (it opens it
 * read-write, which never blocks) and never writes when nobody made it.
 */
export const NOTIFY_FIFO = '.notify';

export function notifyFifo(hooksDir: string): string {
  return `${hooksDir}/${NOTIFY_FIFO}`;
}

/** The hook file and fifo of a seat on a host, when its runtime's hooks are installed there. */
export function remoteHookOf(
  seat: Pick<SeatRow, 'seat' | 'runtime' | 'env'>,
): { file: string; fifo: string } | undefined {
  const home = seatHookHome(runtimeById(seat.runtime), seat.env);
  if (!home) return undefined;
  const dir = remoteHooksDir(home);
  return { file: `${dir}/${seat.seat}.json`, fifo: notifyFifo(dir) };
}

/** What the host's evidence round read of a seat's hook file: its text and its age there. */
export interface RemoteHookRead {
  raw: string;
  ageMs: number;
  readAt: number;
}

/**
 * Makes each fifo afresh (a reader left by an engine that went away keeps the old one), says so,
 * then copies every fifo to ssh: each line is a seat whose hook just wrote.
 */
const SCRIPT = [
  'for f in "$@"; do mkdir -p -m 700 "${f%/*}" && rm -f "$f" && mkfifo -m 600 "$f" || { echo "rigdesk:failed $f"; exit 1; }; done',
  'echo rigdesk:watching',
  'for f in "$@"; do cat 3<>"$f" <&3 & done',
  'wait',
].join('\n');

export function hookWatchArgs(fifos: readonly string[]): string[] {
  return ['-c', SCRIPT, 'rigdesk-hooks', ...fifos];
}

/** One host's hook stream: `onSeat` for every seat whose hook wrote. */
export class RemoteHookWatch {
  private child?: ChildProcess;
  /** Its fifos are made and read: a hook that writes now is heard. */
  watching = false;
  constructor(
    readonly key: string,
    private readonly argv: string[],
    private readonly onSeat: (seat: string) => void,
    private readonly env: NodeJS.ProcessEnv,
    private readonly children?: ChildSet,
  ) {}

  start(): void {
    const child = spawn(this.argv[0]!, this.argv.slice(1), { stdio: ['ignore', 'pipe', 'ignore'], env: this.env });
    this.child = child;
    this.children?.trackChild(child, 'ssh hook stream');
    child.on('error', () => undefined);
    let buf = '';
    child.stdout!.on('data', (d: Buffer) => {
      buf += d.toString('utf8');
      let nl = buf.indexOf('\n');
      while (nl >= 0) {
        const line = buf.slice(0, nl).trim();
        buf = buf.slice(nl + 1);
        if (line === 'rigdesk:watching') this.watching = true;
        else if (line && !line.startsWith('rigdesk:')) this.onSeat(line);
        nl = buf.indexOf('\n');
      }
    });
  }

  get alive(): boolean {
    return this.child !== undefined && this.child.exitCode === null && this.child.signalCode === null;
  }

  stop(): void {
    this.child?.kill('SIGTERM');
    this.child = undefined;
  }
}

/**
 * The hook streams of every host with hooked seats: one per host, made again when its seats' fifos
 * change or its stream ended (ssh went, the host went away). `sync` is cheap when nothing changed.
 */
export class RemoteHookWatches {
  private readonly byHost = new Map<string, RemoteHookWatch>();
  constructor(
    private readonly streamArgv: (host: string, file: string, args: readonly string[]) => string[] | undefined,
    private readonly onSeat: (seat: string) => void,
    private readonly env: NodeJS.ProcessEnv,
    /** The engine's processes: each stream's ssh is tracked there until it exits. */
    private readonly children?: ChildSet,
  ) {}

  sync(seats: readonly Pick<SeatRow, 'seat' | 'runtime' | 'env' | 'host'>[]): void {
    const fifos = new Map<string, Set<string>>();
    for (const s of seats) {
      if (s.host === 'local') continue;
      const h = remoteHookOf(s);
      if (!h) continue;
      const set = fifos.get(s.host) ?? new Set<string>();
      set.add(h.fifo);
      fifos.set(s.host, set);
    }
    for (const [host, w] of this.byHost)
      if (!fifos.has(host)) {
        w.stop();
        this.byHost.delete(host);
      }
    for (const [host, set] of fifos) {
      const list = [...set].sort();
      const key = `${host}\0${list.join('\0')}`;
      const have = this.byHost.get(host);
      if (have?.alive && have.key === key) continue;
      have?.stop();
      const argv = this.streamArgv(host, 'sh', hookWatchArgs(list));
      if (!argv) {
        this.byHost.delete(host);
        continue;
      }
      const w = new RemoteHookWatch(key, argv, this.onSeat, this.env, this.children);
      w.start();
      this.byHost.set(host, w);
    }
  }

  stop(): void {
    for (const w of this.byHost.values()) w.stop();
    this.byHost.clear();
  }

  /** Whether the host's stream has made and opened its fifos. */
  watching(host: string): boolean {
    const w = this.byHost.get(host);
    return w !== undefined && w.alive && w.watching;
  }
}
