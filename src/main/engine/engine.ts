import { Looks, type LookPorts } from './activity/observe';
import { ownSocketPath, tmuxFor, type EngineDeps } from './context';
import type { Exec } from './deps';
import type { TmuxStuck } from '../../shared/contract';
import { buildRoster } from './roster/build';
import { ForeignListings } from './roster/foreign';
import { LocksAhead } from './roster/locks';
import type { Roster } from './roster/types';
import { AGENT_RUNTIMES, runtimeById } from './runtimes';
import { hostOfServer, parseServerKey, serverKey } from './tmux/identity';
import { TmuxClient } from './tmux/client';
import { HostSet, hostRoster } from './hosts/roster';
import { mergeRosters } from './hosts/merge';
import type { ProcInfo, ProcReader } from './proc/types';
import { ChangesBook } from './changes/book';
import { execGitPort, type GitPort, liveScratchFs, localGitPort } from './git';
import type { Ports, RespawnGuard, SeatHomeOf } from './ports';
import { liveUsageDeps, type UsagePorts } from './usage/live';
import { UsageWatch } from './usage/watch';
import { Devices } from './devices/pairing';
import { liveUsageBook } from './usage/book';

/** Everything the engine's folders are given: the ports, the observation bus, the usage tails. */
export type EnginePorts = Ports & LookPorts & UsagePorts & { changes: ChangesBook };

/**
 * The orchestration engine: plain Node, no Electron. The app, the CLI and `rigdesk serve` all run
 * this class. It is the composition root: it builds the ports once from its deps, and the request
 * entry points (./services, ./api) hand each folder the ports it asks for.
 */
export class Engine {
  readonly own: TmuxClient;
  readonly ownKey: string;
  private readonly ownPath: string;
  readonly hosts: HostSet;
  /** Other servers' listings, used again while they still fit (roster/foreign.ts). */
  private readonly foreign = new ForeignListings();
  private readonly locksAhead = new LocksAhead();
  /**
   * What the engine's folders take, built once. `overrides` replace some of them, given the ones
   * built (tests and benches: a forced fault, a roster that counts).
   */
  readonly ports: EnginePorts;
  /** Paired devices: pairing codes, tokens, and who is told when one is revoked. */
  readonly devices: Devices;
  constructor(
    readonly deps: EngineDeps,
    overrides: Partial<EnginePorts> | ((built: EnginePorts) => Partial<EnginePorts>) = {},
  ) {
    this.hosts = new HostSet(deps);
    this.own = tmuxFor(deps, deps.layout.tmuxServer);
    this.ownKey = serverKey(deps.layout.tmuxServer);
    this.ownPath = ownSocketPath(deps);
    const ports: Ports = {
      store: deps.store,
      clock: deps.clock,
      fs: deps.fs,
      io: deps.io,
      env: deps.env,
      userHome: deps.userHome,
      selfPid: deps.selfPid,
      layout: deps.layout,
      newId: deps.newId,
      faults: deps.faults,
      children: deps.children,
      exec: deps.exec,
      proc: deps.proc,
      hosts: this.hosts,
      gitOn: (host) => this.gitOn(host),
      ownKey: this.ownKey,
      roster: () => this.sharedRoster(),
      client: (server) => this.client(server),
      ownOn: (host) => this.ownOn(host),
      procOf: (server) => this.procOf(server),
      procNow: (server, pid) => this.procNow(server, pid),
      seatHome: (seat) => this.seatHome(seat),
      beforeRespawn: (server, paneId) => this.beforeRespawn(server, paneId),
      onBeforeRespawn: (guard) => this.onBeforeRespawn(guard),
    };
    const built: EnginePorts = {
      ...ports,
      looks: new Looks(),
      usage: new UsageWatch(liveUsageDeps(ports)),
      usageBook: liveUsageBook(ports),
      changes: new ChangesBook({ gitOn: ports.gitOn, clock: deps.clock, exists: (p) => deps.fs.existsSync(p) }),
    };
    this.ports = { ...built, ...(typeof overrides === 'function' ? overrides(built) : overrides) };
    this.devices = new Devices(this.ports);
  }

  get store() {
    return this.deps.store;
  }

  private respawnGuards = new Set<RespawnGuard>();

  /** Ports.onBeforeRespawn. */
  private onBeforeRespawn(guard: RespawnGuard): () => void {
    this.respawnGuards.add(guard);
    return () => void this.respawnGuards.delete(guard);
  }

  /** Ports.beforeRespawn. */
  private async beforeRespawn(server: string, paneId: string): Promise<() => void> {
    const releases = await Promise.all([...this.respawnGuards].map((g) => g(server, paneId)));
    return () => {
      for (const r of releases) r();
    };
  }

  /** The last probe of this engine's own tmux server found it stuck (services/stuck-server.ts). */
  stuckSeen?: { at: number; stuck: TmuxStuck };

  now(): number {
    return this.deps.clock.now();
  }

  /**
   * Ends every process this engine started and waits for their exits, within about `boundMs`: the
   * held tmux clients are detached, then each tracked process is ended by its pid if it has not
   * gone (children.ts says why a client cannot be left to end by itself). The store stays open: its
   * owner closes it.
   *
   * A host's ssh master is not this engine's alone: its socket is in the home, and every Rigdesk
   * process on that home (the CLI's commands, a test's engine, the serving engine) rides it. So it
   * is never cut here (`-O exit` would end the others' live streams with it). `sshMasters: 'stop'`
   * (the serving engine, the app) asks it to take no new sessions and go once the last one ends;
   * 'leave' (a short-lived CLI command) lets the next command reuse it, and it ends by itself
   * ControlPersist seconds after its last session.
   */
  async close(boundMs = 2_000, opts: { sshMasters?: 'stop' | 'leave' } = {}): Promise<void> {
    this.deps.tmux.closeAll();
    await this.deps.children.endAll(boundMs, { detach: !this.stuckSeen });
    if (opts.sshMasters !== 'leave') this.hosts.stopAll();
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

  private localGit?: GitPort;

  /** git on a host: this machine's through the engine's exec, a host's over its connection. */
  gitOn(host: string): GitPort {
    if (host !== 'local') return execGitPort(this.hosts.get(host)?.exec ?? unknownHostExec(host));
    this.localGit ??= localGitPort(this.deps.exec, liveScratchFs(this.deps.fs), this.deps.env);
    return this.localGit;
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
  seatHome(seat: SeatHomeOf): string | undefined {
    const r = runtimeById(seat.runtime);
    if (!r?.homeEnvVar) return undefined;
    // On another host only the seat's own setting is known; this machine's defaults mean nothing there.
    if ((seat as { host?: string }).host && (seat as { host?: string }).host !== 'local') return seat.env[r.homeEnvVar];
    const home = seat.env.HOME ?? this.deps.userHome;
    return seat.env[r.homeEnvVar] ?? this.deps.env[r.homeEnvVar] ?? r.defaultHome?.(home);
  }

  /** A fresh roster, through the engine's roster port (a test's override included). */
  roster(): Promise<Roster> {
    return this.ports.roster();
  }

  /** The read running now, and the next one, which callers may join until it begins. */
  private reading?: Promise<Roster>;
  private pendingRead?: Promise<Roster>;

  /**
   * Callers asking at the same moment share one read, and each still gets a roster begun after it
   * asked: the next read begins a turn of the event loop after its first caller (and not before the
   * running one ends), and everyone who asks until then shares it. Launches in lanes ask together;
   * 16 reads of 200 panes would queue on tmux's one thread behind each other for nothing.
   */
  private sharedRoster(): Promise<Roster> {
    this.pendingRead ??= (this.reading ?? Promise.resolve())
      .catch(() => undefined)
      .then(() => new Promise<void>((r) => setImmediate(r)))
      .then(() => {
        this.pendingRead = undefined;
        const read = this.readRoster();
        this.reading = read;
        read.then(
          () => this.doneReading(read),
          () => this.doneReading(read),
        );
        return read;
      });
    return this.pendingRead;
  }

  private doneReading(read: Promise<Roster>): void {
    if (this.reading === read) this.reading = undefined;
  }

  /** A fresh roster: what every custody decision reads (docs/architecture.md invariant 1). */
  private async readRoster(): Promise<Roster> {
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
