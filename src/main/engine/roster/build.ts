import { ancestors, descendants, foregroundOf } from '../proc/lineage';
import type { FileLock, ProcInfo, ProcReader, ProcSnapshot } from '../proc/types';
import { AGENT_RUNTIMES, type ConversationClaim, type EvidenceIO, type RuntimeAdapter } from '../runtimes';
import type { ServiceRole } from '../runtimes/types';
import type { TmuxClient } from '../tmux/client';
import type { PaneRow } from '../tmux/format';
import { serverKey } from '../tmux/identity';
import { askAgentServers, type ForeignListings, listServer } from './foreign';
import { type ClaimHome, claimHomes, type LocksAhead, need, wantsLocks } from './locks';
import type { Roster, RosterAgent, RosterPane, RosterProblem } from './types';

export interface RosterDeps {
  proc: ProcReader;
  io: EvidenceIO;
  /** The tmux servers always watched (Rigdesk's own, and those of live store rows). */
  servers: TmuxClient[];
  /** Opens a client for a server found only through an agent's TMUX variable (`-S path`). */
  clientForPath: (socketPath: string) => TmuxClient;
  /** Maps a socket path back to an already-watched server key, so one server is listed once. */
  keyForPath: (socketPath: string) => string | undefined;
  /** Config homes Rigdesk knows of (seats' isolated homes and the user's defaults), per runtime. */
  knownHomes: { runtime: string; home: string }[];
  uid: number;
  selfPid: number;
  now: () => number;
  /** The host this roster reads (absent: this machine); its keys, agents, claims and problems carry it. */
  host?: string;
  /** Listings of servers found only through agents, kept between refreshes (absent: listed every time). */
  foreign?: ForeignListings;
  /** Starts the read of the held locks early when the last refresh needed them (roster/locks.ts). */
  locksAhead?: LocksAhead;
}

type HostClaim = ConversationClaim & { host?: string };

const SOURCE_RANK: Record<ConversationClaim['source'], number> = { writer_lock: 4, live_state: 3, argv: 2, store: 1 };

/**
 * One roster refresh: one read of the process table, one `list-panes -a` per tmux server that is
 * watched or hosts an agent (one found only through an agent: at most one, see roster/foreign.ts),
 * and file reads for live-state evidence. The number of process spawns does not grow with the
 * number of seats.
 */
export async function buildRoster(deps: RosterDeps): Promise<Roster> {
  const problems: RosterProblem[] = [];
  // The watched servers are asked first, so tmux answers while the process table is read.
  const watched = deps.servers.map((client) => ({ client, res: listServer(client) }));
  const early = deps.locksAhead?.early(deps.proc);
  const snap = deps.proc.snapshot();
  const agents = findAgents(snap, deps, problems);
  const others = askAgentServers(agentServers(deps, agents), snap, deps.clientForPath, deps.foreign);
  const homes = claimHomes(
    deps.knownHomes,
    [...agents.values()].map((a) => ({ runtime: a.adapter.id, home: a.agent.home })),
  );
  const wanted = wantsLocks(homes.values(), deps.io);
  const locks = deps.locksAhead ? deps.locksAhead.need(wanted, deps.proc, early) : need(wanted, deps.proc);
  const asked = [...watched, ...others];
  const listed = await Promise.all(asked.map(async ({ client, res }) => ({ client, res: await res })));

  const panes: RosterPane[] = [];
  const servers: Roster['servers'] = [];
  const agentInPane = new Set<number>();
  for (const { client, res } of listed) {
    if (!res.ok) {
      problems.push({ probe: 'tmux list-panes', server: client.key, error: res.message });
      servers.push({ server: client.key, running: false });
      continue;
    }
    servers.push({ server: client.key, running: res.running });
    if (res.malformed > 0) {
      // A row we could not read may be a seat's pane: that server's panes are not fully known.
      problems.push({
        probe: 'tmux list-panes',
        server: client.key,
        error: `${res.malformed} pane row(s) did not parse`,
      });
    }
    for (const row of res.panes) {
      const pane = paneFromRow(client.key, row, snap, agents);
      if (pane.agent) agentInPane.add(pane.agent.pid);
      panes.push(pane);
    }
  }

  const held = await locks;
  if ('error' in held) problems.push({ probe: '/proc/locks', error: held.error });
  const claims: HostClaim[] = [
    ...gatherClaims(snap, deps, agents, problems, { homes, locks: 'locks' in held ? held.locks : [] }),
    ...wrapperClaims(snap, panes, deps),
  ];
  attributeClaims(snap, claims, agents);

  const agentList: RosterAgent[] = [];
  for (const a of agents.values()) {
    // A service's TMUX_PANE is the pane of the TUI that started it, which it has outlived.
    if (!agentInPane.has(a.agent.pid) && !a.agent.service) {
      const tmuxPath = a.env?.TMUX?.split(',')[0];
      if (tmuxPath && a.env?.TMUX_PANE) {
        a.agent.pane = { server: pathKey(deps, tmuxPath), paneId: a.env.TMUX_PANE };
      }
    }
    if (deps.host) a.agent.host = deps.host;
    agentList.push(a.agent);
  }
  if (deps.host) {
    for (const c of claims) c.host = deps.host;
    for (const p of problems) p.host = deps.host;
  }
  return { takenAt: deps.now(), servers, panes, agents: agentList, claims, problems };
}

/** Any server an agent says it runs in (its TMUX variable) that is not watched, with its agents. */
function agentServers(
  deps: RosterDeps,
  agents: Map<number, FoundAgent>,
): Map<string, { path: string; pids: number[] }> {
  const watched = new Set(deps.servers.map((c) => c.key));
  const found = new Map<string, { path: string; pids: number[] }>();
  for (const a of agents.values()) {
    const path = a.agent.service ? undefined : a.env?.TMUX?.split(',')[0];
    if (!path) continue;
    const key = pathKey(deps, path);
    if (watched.has(key)) continue;
    const entry = found.get(key) ?? { path, pids: [] };
    entry.pids.push(a.agent.pid);
    found.set(key, entry);
  }
  return found;
}

/** A server named by socket path, on the roster's host. */
function pathKey(deps: RosterDeps, path: string): string {
  return deps.keyForPath(path) ?? serverKey({ kind: 'path', path, ...(deps.host ? { host: deps.host } : {}) });
}

interface FoundAgent {
  agent: RosterAgent;
  adapter: RuntimeAdapter;
  /** The agent's own process and nested processes of the same runtime (Codex's shim + binary). */
  pids: Set<number>;
  env?: Record<string, string>;
}

function findAgents(snap: ProcSnapshot, deps: RosterDeps, problems: RosterProblem[]): Map<number, FoundAgent> {
  const found = new Map<number, FoundAgent>();
  const runtimeOf = new Map<number, RuntimeAdapter>();
  for (const p of snap.byPid.values()) {
    if (p.uid !== deps.uid || p.pid === deps.selfPid) continue;
    const adapter = AGENT_RUNTIMES.find((r) => r.matches(p));
    if (adapter) runtimeOf.set(p.pid, adapter);
  }
  const serviceOf = new Map<number, ServiceRole>();
  for (const [pid, adapter] of runtimeOf) {
    const role = adapter.serviceRole?.(snap.byPid.get(pid)!);
    if (role) serviceOf.set(pid, role);
  }
  for (const [pid, adapter] of runtimeOf) {
    // The topmost process of a chain of the same runtime stands for the whole chain; a background
    // service (Codex's daemon, started by a TUI but serving the whole home) stands for its own.
    const chain = [pid, ...ancestors(snap, pid).map((a) => a.pid)];
    const cut = chain.findIndex((x) => serviceOf.has(x));
    const top = chain
      .slice(0, cut < 0 ? chain.length : cut + 1)
      .filter((x) => runtimeOf.get(x) === adapter)
      .pop()!;
    let entry = found.get(top);
    if (!entry) {
      const p = snap.byPid.get(top)!;
      const service = serviceOf.get(top);
      entry = {
        adapter,
        pids: new Set([top]),
        agent: { runtime: adapter.id, pid: top, startTime: p.startTime, argv: p.argv, ...(service ? { service } : {}) },
      };
      found.set(top, entry);
      readAgentContext(entry, deps, problems);
    }
    entry.pids.add(pid);
  }
  return found;
}

function readAgentContext(entry: FoundAgent, deps: RosterDeps, problems: RosterProblem[]): void {
  const pid = entry.agent.pid;
  try {
    entry.env = deps.proc.environ(pid);
    entry.agent.cwd = deps.proc.cwd(pid);
  } catch (e) {
    problems.push({
      probe: 'process environment',
      runtime: entry.adapter.id,
      error: `pid ${pid}: ${(e as Error).message}`,
    });
    return;
  }
  const env = entry.env ?? {};
  const v = entry.adapter.homeEnvVar;
  entry.agent.home = (v && env[v]) || (env.HOME && entry.adapter.defaultHome?.(env.HOME)) || undefined;
  if (env.RIGDESK_SEAT) entry.agent.seatTag = env.RIGDESK_SEAT;
}

function paneFromRow(server: string, row: PaneRow, snap: ProcSnapshot, agents: Map<number, FoundAgent>): RosterPane {
  const tree = descendants(snap, row.panePid);
  const self = snap.byPid.get(row.panePid);
  const agentEntry = [self, ...tree].map((p) => (p ? agents.get(p.pid) : undefined)).find(Boolean);
  const fg = foregroundOf(snap, row.panePid);
  const pane: RosterPane = {
    server,
    serverPid: row.serverPid,
    sessionId: row.sessionId,
    sessionName: row.sessionName,
    sessionCreated: row.sessionCreated,
    paneId: row.paneId,
    panePid: row.panePid,
    panePidStart: self?.startTime,
    paneDead: row.paneDead,
    seatTag: row.seatTag,
    attemptTag: row.attemptTag,
    pipe: row.pipe,
    currentCommand: row.currentCommand,
    currentPath: row.currentPath,
    title: row.title,
    wrapped: self?.argv.includes('rigdesk-seat') ?? false,
    unborn: !self || self.comm.startsWith('tmux'),
    lineage: tree.slice(0, 32).map((p) => ({ pid: p.pid, comm: p.comm, startTime: p.startTime })),
    foreground: fg ? { pid: fg.pid, comm: fg.comm } : undefined,
  };
  if (agentEntry) {
    agentEntry.agent.pane = { server, paneId: row.paneId, sessionId: row.sessionId, sessionName: row.sessionName };
    pane.agent = agentEntry.agent;
  }
  return pane;
}

function gatherClaims(
  snap: ProcSnapshot,
  deps: RosterDeps,
  agents: Map<number, FoundAgent>,
  problems: RosterProblem[],
  { homes, locks }: { homes: Map<string, ClaimHome>; locks: FileLock[] },
): HostClaim[] {
  const claims: ConversationClaim[] = [];
  for (const a of agents.values()) {
    for (const pid of a.pids) {
      const p = snap.byPid.get(pid)!;
      const id = a.adapter.conversationFromArgv(p.argv);
      if (id)
        claims.push({
          runtime: a.adapter.id,
          conversationId: id,
          pid: a.agent.pid,
          startTime: a.agent.startTime,
          source: 'argv',
          home: a.agent.home,
        });
    }
  }
  const alive = (pid: number, start?: string) => {
    const p = snap.byPid.get(pid);
    if (!p) return false;
    // Claude writes procStart in the same clock-tick unit as /proc/<pid>/stat; a different value
    // means the pid was reused and the file is stale.
    return start === undefined || !/^\d+$/.test(start) || start === p.startTime;
  };
  for (const { runtime, home } of homes.values()) {
    const adapter = AGENT_RUNTIMES.find((r) => r.id === runtime);
    if (!adapter?.liveClaims) continue;
    try {
      const processes = [...agents.values()]
        .filter((a) => a.adapter === adapter && a.agent.home === home)
        .map(({ agent: { pid, startTime, argv, cwd } }) => ({ pid, startTime, argv, cwd }));
      claims.push(...adapter.liveClaims({ home, io: deps.io, alive, locks, processes }));
    } catch (e) {
      problems.push({ probe: 'live state', runtime, home, error: (e as Error).message });
    }
  }
  for (const c of claims) if (c.startTime === undefined) c.startTime = snap.byPid.get(c.pid)?.startTime;
  return dropSupersededArgv(snap, claims, agents);
}

/**
 * A process's argv names the conversation it started with; after Claude's `/clear` it writes
 * another, which its live-state file names. Where stronger evidence names a different conversation
 * for the same agent, the argv claim is history and is dropped.
 */
function dropSupersededArgv(
  snap: ProcSnapshot,
  claims: ConversationClaim[],
  agents: Map<number, FoundAgent>,
): ConversationClaim[] {
  const topOf = (pid: number) => [pid, ...ancestors(snap, pid).map((p) => p.pid)].find((p) => agents.has(p)) ?? pid;
  const strong = new Map<string, Set<string>>();
  for (const c of claims) {
    if (c.source === 'argv') continue;
    const k = `${c.runtime}\0${topOf(c.pid)}`;
    strong.set(k, (strong.get(k) ?? new Set()).add(c.conversationId));
  }
  return claims.filter((c) => {
    if (c.source !== 'argv') return true;
    const named = strong.get(`${c.runtime}\0${topOf(c.pid)}`);
    return !named || named.has(c.conversationId);
  });
}

/** Gives each agent the conversation named by its strongest claim (lock > live state > argv). */
function attributeClaims(snap: ProcSnapshot, claims: ConversationClaim[], agents: Map<number, FoundAgent>): void {
  for (const c of claims) {
    const owner = [c.pid, ...ancestors(snap, c.pid).map((p) => p.pid)]
      .map((pid) => agents.get(pid))
      .find((a) => a && a.adapter.id === c.runtime);
    if (!owner) continue;
    c.pid = owner.agent.pid;
    c.startTime = owner.agent.startTime;
    const cur = owner.agent.conversationSource;
    if (!cur || SOURCE_RANK[c.source] > SOURCE_RANK[cur]) {
      owner.agent.conversationId = c.conversationId;
      owner.agent.conversationSource = c.source;
    }
  }
}

export type { ProcInfo };

/**
 * Pi rewrites its own command line, but Rigdesk's pane wrapper keeps the argv it launched the
 * agent with (after `rigdesk-seat`): for the wrapper's direct child, that argv names the
 * conversation.
 */
function wrapperClaims(snap: ProcSnapshot, panes: RosterPane[], deps: RosterDeps): ConversationClaim[] {
  const out: ConversationClaim[] = [];
  for (const pane of panes) {
    const agent = pane.agent;
    const adapter = agent && AGENT_RUNTIMES.find((r) => r.id === agent.runtime);
    if (!agent || !adapter?.conversationFromLaunchArgv) continue;
    const wrapper = snap.byPid.get(pane.panePid);
    if (!wrapper || snap.byPid.get(agent.pid)?.ppid !== wrapper.pid) continue;
    const i = wrapper.argv.indexOf('rigdesk-seat');
    if (i < 0) continue;
    let id: string | undefined;
    try {
      id = adapter.conversationFromLaunchArgv(wrapper.argv.slice(i + 1), deps.io);
    } catch {
      continue; // unreadable session file: no claim from it (the store row still binds the pane)
    }
    if (id)
      out.push({
        runtime: adapter.id,
        conversationId: id,
        pid: agent.pid,
        startTime: agent.startTime,
        source: 'argv',
        home: agent.home,
        detail: 'launch argv kept by the pane wrapper',
      });
  }
  return out;
}
