import { connect } from 'node:net';
import { ChildSet } from '../children';
import type { Exec, ExecResult } from '../deps';
import { ControlConnection } from './control';
import type { ControlTarget } from './control-target';
import type { TmuxServerRef } from './identity';

/**
 * Which servers get a held control-mode client: Rigdesk's own (here, and on each remote host over
 * its shared ssh connection). Every other tmux server (a person's, another tool's, found through an
 * agent's TMUX variable for the roster's census) keeps one-shot commands: a held client would have
 * to attach to one of their sessions, showing up in their `list-clients`, firing their
 * `client-attached` hooks and becoming the client their untargeted commands act on, for the one
 * `list-panes` a refresh asks of such a server.
 *
 * `one-shot` mode sends everything through execFile as before: the benches compare the two paths
 * in one run.
 */
export type TmuxMode = 'held' | 'one-shot';

export class TmuxLinks {
  private readonly byKey = new Map<string, ControlConnection>();
  /** Control clients started, over all servers (process spawns the benches count beside exec's). */
  spawns = 0;
  constructor(
    readonly mode: TmuxMode = 'held',
    /** Where the held clients are tracked until they exit (the engine's, so they end with it). */
    readonly children: ChildSet = new ChildSet(),
  ) {}

  /** The held client for a server key, made on first use; undefined in one-shot mode. */
  link(key: string, target: () => ControlTarget): ControlConnection | undefined {
    if (this.mode === 'one-shot') return undefined;
    let c = this.byKey.get(key);
    if (!c) {
      const t = target();
      c = new ControlConnection(
        {
          ...t,
          onSpawn: () => {
            this.spawns += 1;
            t.onSpawn?.();
          },
        },
        this.children,
      );
      this.byKey.set(key, c);
    }
    return c;
  }

  /** Pids of the held clients running now. */
  pids(): number[] {
    return [...this.byKey.values()].flatMap((c) => (c.pid === undefined ? [] : [c.pid]));
  }

  get(key: string): ControlConnection | undefined {
    return this.byKey.get(key);
  }

  /** Detaches every held client; the ChildSet waits for their exits (children.ts). */
  closeAll(): void {
    for (const c of this.byKey.values()) c.close();
    this.byKey.clear();
  }
}

/** `tmux -C` as a held client: pane output off from the first moment, never sizing a window. */
export function controlArgs(): string[] {
  return ['-C', 'attach-session', '-f', 'ignore-size,no-output'];
}

/**
 * Whether a server listens on a local socket, without a spawn and without starting one: a missing
 * socket, or one nobody accepts on (tmux leaves the file behind when a server is killed), is a
 * server that is not running.
 */
export function probeSocket(path: string, timeoutMs = 1_000): Promise<'present' | 'absent' | 'unknown'> {
  return new Promise((resolve) => {
    const s = connect(path);
    const t = setTimeout(() => (s.destroy(), resolve('unknown')), timeoutMs);
    s.once('connect', () => (clearTimeout(t), s.destroy(), resolve('present')));
    s.once('error', (e: NodeJS.ErrnoException) => {
      clearTimeout(t);
      resolve(e.code === 'ENOENT' || e.code === 'ECONNREFUSED' ? 'absent' : 'unknown');
    });
  });
}

export type OneShot = (args: readonly string[], opts: { timeoutMs: number }) => Promise<ExecResult>;

/**
 * A remote host's held client rides its Exec: the engine builds a host's TmuxClients from the
 * host's exec alone (`new TmuxClient(ref, { exec: host.exec })`), so the host registers here which
 * of its servers has a held client, and a TmuxClient made on that exec finds it. Likewise the
 * engine's links are found from the engine's exec, which is one function per engine.
 */
const CONTROL_BY_EXEC = new WeakMap<Exec, (ref: TmuxServerRef) => ControlConnection | undefined>();
const LINKS_BY_EXEC = new WeakMap<Exec, TmuxLinks>();

export function carryControl(exec: Exec, pick: (ref: TmuxServerRef) => ControlConnection | undefined): void {
  CONTROL_BY_EXEC.set(exec, pick);
}

export function carriedControl(exec: Exec, ref: TmuxServerRef): ControlConnection | undefined {
  return CONTROL_BY_EXEC.get(exec)?.(ref);
}

export function registerLinks(exec: Exec, links: TmuxLinks): void {
  LINKS_BY_EXEC.set(exec, links);
}

export function linksOf(exec: Exec): TmuxLinks | undefined {
  return LINKS_BY_EXEC.get(exec);
}
