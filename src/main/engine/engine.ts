import { ownSocketPath, tmuxFor, type EngineDeps } from './context';
import type { Exec } from './deps';
import { buildRoster } from './roster/build';
import { ForeignListings } from './roster/foreign';
import { LocksAhead } from './roster/locks';
import type { Roster } from './roster/types';
import { AGENT_RUNTIMES, runtimeById } from './runtimes';
import type { SeatRow, SessionRow } from './store';
import { hostOfServer, parseServerKey, serverKey } from './tmux/identity';
import { TmuxClient } from './tmux/client';
import { HostSet, hostRoster } from './hosts/roster';
import { mergeRosters } from './hosts/merge';
import type { ProcInfo, ProcReader } from './proc/types';

export type RespawnGuard = (server: string, paneId: string) => Promise<() => void>;

/**
 * The orchestration engine: plain Node, no Electron. The app, the CLI and `rigdesk serve` all run
 * this class; its services (launch, stop, send, ...) live in ./services and take it as context.
 */
export class Engine {
  readonly own: TmuxClient;
  readonly ownKey: string;
  private readonly ownPath: string;
  readonly hosts: HostSet;
  /** Other servers' listings, used again while they still fit (roster/foreign.ts). */
  private readonly foreign = new ForeignListings();
  private readonly locksAhead = new LocksAhead();
  constructor(readonly deps: EngineDeps) {
    this.hosts = new HostSet(deps);
    this.own = tmuxFor(deps, deps.layout.tmuxServer);
    this.ownKey = serverKey(deps.layout.tmuxServer);
    this.ownPath = ownSocketPath(deps);
  }

  get store() {
    return this.deps.store;
  }

  private respawnGuards = new Set<RespawnGuard>();

  /**
   * Called before a pane is respawned in place (restart), with a release for after. tmux 3.3a's
   * server crashes, every session with it, when a pane is respawned while a control-mode client
   * is behind on its output (tmux #5499); the activity monitor takes its own off such a pane here.
   */
  onBeforeRespawn(guard: RespawnGuard): () => void {
    this.respawnGuards.add(guard);
    return () => void this.respawnGuards.delete(guard);
  }

  async beforeRespawn(server: string, paneId: string): Promise<() => void> {
    const releases = await Promise.all([...this.respawnGuards].map((g) => g(server, paneId)));
    return () => {
      for (const r of releases) r();
    };
  }

  now(): number {
    return this.deps.clock.now();
  }

  client(server: string): TmuxClient {
    if (server === this.ownKey) return this.own;
    const ref = parseServerKey(server);
    if (!ref.host) return tmuxFor(this.deps, ref);
    return new TmuxClient(ref, { exec: this.hosts.get(ref.host)?.exec ?? unknownHostExec(ref.host) });
  }

  /** Rigdesk's own tmux server on a host: where that host's seats are created. */
  ownOn(host: string): TmuxClient {
    if (host === 'local') return this.own;
    const h = this.hosts.get(host);
    return h
      ? new TmuxClient(h.tmuxRef, { exec: h.exec })
      : new TmuxClient({ kind: 'name', name: 'rigdesk', host }, { exec: unknownHostExec(host) });
  }

  /** The process table of the host a server runs on, as of the last roster (remote) or now (local). */
  procOf(server: string): ProcReader {
    const host = hostOfServer(server);
    return host === 'local' ? this.deps.proc : (this.hosts.lastProc.get(host) ?? EMPTY_PROC);
  }

  /** One process read fresh on the host a server runs on; 'unknown' when that host did not answer. */
  async procNow(server: string, pid: number): Promise<ProcInfo | undefined | 'unknown'> {
    const host = hostOfServer(server);
    if (host === 'local') return this.deps.proc.read(pid);
    const h = this.hosts.get(host);
    return h ? h.readProc(pid) : 'unknown';
  }

  /** The config home a seat's runtime uses: its spec env, else the default under the user's home. */
  seatHome(seat: Pick<SeatRow, 'runtime' | 'env'> & { host?: string }): string | undefined {
    const r = runtimeById(seat.runtime);
    if (!r?.homeEnvVar) return undefined;
    // On another host only the seat's own setting is known; this machine's defaults mean nothing there.
    if ((seat as { host?: string }).host && (seat as { host?: string }).host !== 'local') return seat.env[r.homeEnvVar];
    const home = seat.env.HOME ?? this.deps.userHome;
    return seat.env[r.homeEnvVar] ?? this.deps.env[r.homeEnvVar] ?? r.defaultHome?.(home);
  }

  /** A fresh roster: what every custody decision reads (docs/architecture.md invariant 1). */
  async roster(): Promise<Roster> {
    const servers = new Map<string, TmuxClient>([[this.ownKey, this.own]]);
    const live = this.store.sessions.allLive();
    for (const row of live)
      if (!servers.has(row.server) && hostOfServer(row.server) === 'local')
        servers.set(row.server, this.client(row.server));
    const seats = this.store.rigs.seats();
    const remote = this.hosts.inUse(
      seats,
      live.map((r) => hostOfServer(r.server)),
    );
    const knownHomes: { runtime: string; home: string }[] = [];
    for (const r of AGENT_RUNTIMES) {
      const def = r.homeEnvVar && (this.deps.env[r.homeEnvVar] ?? r.defaultHome?.(this.deps.userHome));
      if (def) knownHomes.push({ runtime: r.id, home: def });
    }
    for (const seat of seats) {
      if (seat.host !== 'local') continue;
      const h = this.seatHome(seat);
      if (h) knownHomes.push({ runtime: seat.runtime, home: h });
    }
    const [local, ...others] = await Promise.all([
      buildRoster({
        proc: this.deps.proc,
        io: this.deps.io,
        servers: [...servers.values()],
        clientForPath: (path) => tmuxFor(this.deps, { kind: 'path', path }),
        keyForPath: (path) => (path === this.ownPath ? this.ownKey : undefined),
        knownHomes,
        uid: this.deps.uid,
        selfPid: this.deps.selfPid,
        now: () => this.now(),
        foreign: this.foreign,
        locksAhead: this.locksAhead,
      }),
      ...remote.map((h) =>
        hostRoster(
          this.hosts,
          h,
          seats.filter((s) => s.host === h),
          () => this.now(),
        ),
      ),
    ]);
    const merged = mergeRosters(local!, others);
    this.recordHostHealth(merged);
    return merged;
  }

  /**
   * A host going away or coming back is a state change, so it is an event row (docs/architecture.md
   * invariant 8); only transitions are recorded, read back from the log so any process sees them.
   */
  private recordHostHealth(roster: Roster): void {
    for (const h of roster.hosts ?? []) {
      if (h.state === 'local') continue;
      if (this.store.hosts.lastHealth(h.host) === h.state) continue;
      this.store.events.append(
        h.state === 'reachable' ? 'host.reachable' : 'host.unreachable',
        {},
        h.state === 'reachable'
          ? { host: h.host, rttMs: h.rttMs }
          : { host: h.host, reason: h.reason, failures: h.failures },
      );
    }
  }

  /** The live row's pane as the roster sees it, only if its immutable identity still matches. */
  paneOf(roster: Roster, row: SessionRow) {
    return roster.panes.find(
      (p) =>
        p.server === row.server &&
        p.paneId === row.paneId &&
        p.sessionId === row.sessionId &&
        p.serverPid === row.serverPid &&
        p.sessionCreated === row.sessionCreated,
    );
  }

  serverRunning(roster: Roster, server: string): boolean | undefined {
    return roster.servers.find((s) => s.server === server)?.running;
  }
}

const EMPTY_PROC: ProcReader = {
  snapshot: () => ({ takenAt: 0, byPid: new Map(), children: new Map() }),
  read: () => undefined,
  cwd: () => undefined,
  environ: () => undefined,
  locks: () => [],
};

/** A server key naming a host Rigdesk does not know: every command fails as the host being unreachable. */
function unknownHostExec(host: string): Exec {
  return async () => ({
    code: null,
    signal: null,
    stdout: '',
    stderr: '',
    timedOut: false,
    spawnError: `ssh: host ${host} is not known`,
  });
}
