import { ownSocketPath, tmuxFor, type EngineDeps } from './context';
import { buildRoster } from './roster/build';
import type { Roster } from './roster/types';
import { AGENT_RUNTIMES, runtimeById } from './runtimes';
import type { SeatRow, SessionRow } from './store';
import { parseServerKey, serverKey } from './tmux/identity';
import type { TmuxClient } from './tmux/client';

/**
 * The orchestration engine: plain Node, no Electron. The app, the CLI and `rigdesk serve` all run
 * this class; its services (launch, stop, send, ...) live in ./services and take it as context.
 */
export class Engine {
  readonly own: TmuxClient;
  readonly ownKey: string;
  private readonly ownPath: string;
  constructor(readonly deps: EngineDeps) {
    this.own = tmuxFor(deps, deps.layout.tmuxServer);
    this.ownKey = serverKey(deps.layout.tmuxServer);
    this.ownPath = ownSocketPath(deps);
  }

  get store() {
    return this.deps.store;
  }

  now(): number {
    return this.deps.clock.now();
  }

  client(server: string): TmuxClient {
    return server === this.ownKey ? this.own : tmuxFor(this.deps, parseServerKey(server));
  }

  /** The config home a seat's runtime uses: its spec env, else the default under the user's home. */
  seatHome(seat: Pick<SeatRow, 'runtime' | 'env'>): string | undefined {
    const r = runtimeById(seat.runtime);
    if (!r?.homeEnvVar) return undefined;
    const home = seat.env.HOME ?? this.deps.userHome;
    return seat.env[r.homeEnvVar] ?? this.deps.env[r.homeEnvVar] ?? r.defaultHome?.(home);
  }

  /** A fresh roster: what every custody decision reads (design.md invariant 1). */
  async roster(): Promise<Roster> {
    const servers = new Map<string, TmuxClient>([[this.ownKey, this.own]]);
    for (const row of this.store.sessions.allLive()) if (!servers.has(row.server)) servers.set(row.server, this.client(row.server));
    const knownHomes: { runtime: string; home: string }[] = [];
    for (const r of AGENT_RUNTIMES) {
      const def = r.homeEnvVar && (this.deps.env[r.homeEnvVar] ?? r.defaultHome?.(this.deps.userHome));
      if (def) knownHomes.push({ runtime: r.id, home: def });
    }
    for (const seat of this.store.rigs.seats()) {
      const h = this.seatHome(seat);
      if (h) knownHomes.push({ runtime: seat.runtime, home: h });
    }
    return buildRoster({
      proc: this.deps.proc,
      io: this.deps.io,
      servers: [...servers.values()],
      clientForPath: (path) => tmuxFor(this.deps, { kind: 'path', path }),
      keyForPath: (path) => (path === this.ownPath ? this.ownKey : undefined),
      knownHomes,
      uid: this.deps.uid,
      selfPid: this.deps.selfPid,
      now: () => this.now(),
    });
  }

  /** The live row's pane as the roster sees it, only if its immutable identity still matches. */
  paneOf(roster: Roster, row: SessionRow) {
    return roster.panes.find(
      (p) => p.server === row.server && p.paneId === row.paneId && p.sessionId === row.sessionId && p.serverPid === row.serverPid && p.sessionCreated === row.sessionCreated,
    );
  }

  serverRunning(roster: Roster, server: string): boolean | undefined {
    return roster.servers.find((s) => s.server === server)?.running;
  }
}
