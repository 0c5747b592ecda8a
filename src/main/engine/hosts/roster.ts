import type { Exec } from '../deps';
import type { EngineDeps } from '../context';
import { socketPathForName } from '../home';
import type { ProcReader } from '../proc/types';
import { buildRoster } from '../roster/build';
import type { Roster } from '../roster/types';
import { AGENT_RUNTIMES } from '../runtimes';
import type { SeatRow } from '../store';
import { TmuxClient } from '../tmux/client';
import { serverKey, type TmuxServerRef } from '../tmux/identity';
import type { PaneRow } from '../tmux/format';
import type { Result } from '../../../shared/errors';
import { SshHost } from './transport';
import {
  BytesCache,
  parseProbeAnswers,
  probeArgs,
  probeKey,
  replayIO,
  type Probe,
  type ProbeAnswer,
} from './evidence-batch';
import { remoteHookOf, type RemoteHookRead } from './hook-watch';
import { scanProcReader, type HostScan } from './remote-proc';

/** Environment variables the roster reads from a remote agent: tmux placement, seat tag, homes. */
export const ROSTER_ENV_NAMES: readonly string[] = [
  'TMUX',
  'TMUX_PANE',
  'HOME',
  'RIGDESK_SEAT',
  'RIGDESK_ATTEMPT',
  ...AGENT_RUNTIMES.map((r) => r.homeEnvVar).filter((v): v is string => Boolean(v)),
];

/** A tmux client whose list-panes answer arrived inside the host scan: no second round trip. */
class PrelistedClient extends TmuxClient {
  constructor(
    ref: TmuxServerRef,
    exec: Exec,
    private readonly listed: HostScan['panes'],
  ) {
    super(ref, { exec });
  }
  override async listPanes(): Promise<Result<{ running: boolean; panes: PaneRow[]; malformed: number }>> {
    const l = this.listed;
    if (!l) return super.listPanes();
    if ('error' in l)
      return {
        ok: false,
        code: 'TMUX_FAILED',
        message: `tmux list-panes failed on ${this.key}: ${l.error}`,
        evidence: { server: this.key },
      };
    if (!l.running) return { ok: true, running: false, panes: [], malformed: 0 };
    return { ok: true, running: true, panes: l.rows, malformed: l.malformed };
  }
}

/** Every remote host the engine talks to, one SshHost (one ssh master) per name. */
export class HostSet {
  private readonly byName = new Map<string, { json: string; host: SshHost }>();
  /** The process table each host showed at its last scan, for synchronous reads after a roster. */
  readonly lastProc = new Map<string, ProcReader>();
  /** Whole files read from each host (OpenCode's database), asked again only when they changed. */
  readonly bytes = new Map<string, BytesCache>();
  /** Each remote seat's last hook event, as its host's latest evidence round read it. */
  readonly hooks = new Map<string, RemoteHookRead>();
  constructor(private readonly deps: EngineDeps) {}

  get(name: string): SshHost | undefined {
    const row = this.deps.store.hosts.get(name);
    const ssh = row?.spec.ssh;
    if (!row || !ssh) return undefined;
    const json = JSON.stringify(row.spec);
    const have = this.byName.get(name);
    if (have && have.json === json) return have.host;
    const host = new SshHost({ ...row.spec, ssh }, this.deps.layout.home, this.deps.clock, this.deps.exec);
    this.byName.set(name, { json, host });
    return host;
  }

  /** The SshHost already open for a name, without opening one. */
  peek(name: string): SshHost | undefined {
    return this.byName.get(name)?.host;
  }

  /** Remote hosts that matter now: those a seat names or a live row runs on. */
  inUse(seats: readonly SeatRow[], liveHosts: readonly string[]): string[] {
    return [...new Set([...seats.map((s) => s.host), ...liveHosts])].filter((h) => h && h !== 'local').sort();
  }

  closeAll(): void {
    for (const { host } of this.byName.values()) host.close();
  }

  /** Asks every open host's master to go once its sessions end, cutting none (SshHost.stop). */
  stopAll(): void {
    for (const { host } of this.byName.values()) host.stop();
  }
}

/**
 * One host's roster from one scan (one round trip), tagged with the host. A host that does not
 * answer gives no panes and no servers (so nothing of it reads as gone) and one `host` problem
 * that custody turns into HOST_UNREACHABLE.
 */
export async function hostRoster(
  hosts: HostSet,
  name: string,
  seats: readonly SeatRow[],
  now: () => number,
): Promise<Roster> {
  const h = hosts.get(name);
  const empty = (error: string, unreachable: boolean): Roster => ({
    takenAt: now(),
    servers: [],
    panes: [],
    agents: [],
    claims: [],
    problems: [{ probe: 'host', host: name, unreachable, error }],
    hosts: [
      h
        ? h.health()
        : { host: name, state: 'unreachable', checkedAt: now(), reason: error, retryAt: now(), failures: 1 },
    ],
  });
  if (!h) return empty(`host ${name} is not known (add it to the rig spec's hosts, or rigdesk hosts add)`, true);
  const s = await h.scan(ROSTER_ENV_NAMES);
  if (!s.ok) return { ...empty(s.reason, s.unreachable), hosts: [h.health()] };
  const proc = scanProcReader(s.scan, s.takenAt);
  hosts.lastProc.set(name, proc);
  const ownKey = serverKey(h.tmuxRef);
  const ownPath = h.tmuxRef.kind === 'name' ? socketPathForName(h.tmuxRef.name, s.scan.uid, {}) : h.tmuxRef.path;
  const knownHomes: { runtime: string; home: string }[] = [];
  for (const seat of seats) {
    const r = AGENT_RUNTIMES.find((x) => x.id === seat.runtime);
    const home = r?.homeEnvVar ? seat.env[r.homeEnvVar] : undefined;
    if (home) knownHomes.push({ runtime: seat.runtime, home });
  }
  // Other tmux servers an agent names are listed once per refresh, however many evidence rounds.
  const others = new Map<string, TmuxClient>();
  const clientForPath = (path: string): TmuxClient => {
    let c = others.get(path);
    if (!c) {
      c = new TmuxClient({ kind: 'path', path, host: name }, { exec: h.exec });
      const once = c.listPanes();
      c.listPanes = () => once;
      others.set(path, c);
    }
    return c;
  };
  const servers = [new PrelistedClient(h.tmuxRef, h.exec, s.scan.panes)];
  // Evidence files (live-state files, writer locks) are read in rounds: the roster is built on the
  // answers so far, every file it asked about and had no answer for is fetched for all seats in one
  // round trip, and it is built again, until nothing is missing. Never one blocking ssh per file.
  // The seats' hook files ride in the first round.
  const known = new Map<string, ProbeAnswer>();
  const hooks = seats
    .filter((x) => x.host === name)
    .flatMap((x) => {
      const h = remoteHookOf(x);
      return h ? [{ seat: x.seat, probe: { op: 'aged', path: h.file } as Probe }] : [];
    });
  for (let round = 0; ; round++) {
    const wanted = new Map<string, Probe>();
    const roster = await buildRoster({
      proc,
      io: replayIO(known, wanted),
      servers,
      clientForPath,
      keyForPath: (path) => (path === ownPath ? ownKey : undefined),
      knownHomes,
      uid: s.scan.uid,
      selfPid: -1,
      now,
      host: name,
    });
    if (round === 0) for (const x of hooks) wanted.set(probeKey(x.probe), x.probe);
    if (wanted.size === 0) {
      keepHooks(hosts, hooks, known, now());
      return { ...roster, hosts: [h.health()] };
    }
    const fetched =
      round < EVIDENCE_ROUNDS
        ? await fetchProbes(h.exec, [...wanted.values()], known, cacheOf(hosts, name))
        : 'did not settle within the round limit';
    // Unanswered evidence stays a problem of this roster: the guard fails closed on it.
    if (fetched !== true)
      return {
        ...roster,
        problems: [
          ...roster.problems,
          { probe: 'live state', host: name, error: `evidence files on ${name}: ${fetched}` },
        ],
        hosts: [h.health()],
      };
  }
}

function keepHooks(
  hosts: HostSet,
  hooks: readonly { seat: string; probe: Probe }[],
  known: ReadonlyMap<string, ProbeAnswer>,
  now: number,
): void {
  for (const { seat, probe } of hooks) {
    const a = known.get(probeKey(probe));
    const nl = a?.status === 0 ? a.data.indexOf('\n') : -1;
    if (!a || nl < 0) {
      hosts.hooks.delete(seat);
      continue;
    }
    const age = Number(a.data.slice(0, nl));
    hosts.hooks.set(seat, {
      raw: a.data.slice(nl + 1),
      ageMs: Number.isFinite(age) ? Math.max(0, age) * 1000 : 0,
      readAt: now,
    });
  }
}

/** Most runtimes settle in two rounds (list a folder, read what it holds); Codex's dated folders in four. */
const EVIDENCE_ROUNDS = 5;

function cacheOf(hosts: HostSet, name: string): BytesCache {
  const had = hosts.bytes.get(name);
  if (had) return had;
  const c = new BytesCache();
  hosts.bytes.set(name, c);
  return c;
}

async function fetchProbes(
  exec: Exec,
  probes: Probe[],
  into: Map<string, ProbeAnswer>,
  cache: BytesCache,
): Promise<true | string> {
  const r = await exec('sh', probeArgs(cache.send(probes)), { timeoutMs: 8_000 });
  if (r.spawnError) return r.spawnError;
  try {
    for (const [i, a] of parseProbeAnswers(r.stdout, probes.length).entries())
      into.set(probeKey(probes[i]!), cache.take(probes[i]!, a));
    return true;
  } catch (e) {
    return (e as Error).message;
  }
}
