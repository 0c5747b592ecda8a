import type { Roster } from '../roster/types';
import { hostOfServer } from '../tmux/identity';

/** This machine's roster plus each remote host's, in one list; entries keep their host. */
export function mergeRosters(local: Roster, remotes: readonly Roster[]): Roster {
  const out: Roster = {
    ...local,
    servers: [...local.servers],
    panes: [...local.panes],
    agents: [...local.agents],
    claims: [...local.claims],
    problems: [...local.problems],
    hosts: [],
  };
  for (const r of remotes) {
    out.servers.push(...r.servers);
    out.panes.push(...r.panes);
    out.agents.push(...r.agents);
    out.claims.push(...r.claims);
    out.problems.push(...r.problems);
    out.hosts!.push(...(r.hosts ?? []));
  }
  return out;
}

/**
 * The part of a roster that is about one host. Pids and conversation ids are only unique per
 * host (a conversation is (host, runtime, id)), so custody reads the owning host's part only.
 */
export function rosterOnHost(roster: Roster, host: string): Roster {
  const mine = (h: string | undefined) => (h ?? 'local') === host;
  return {
    ...roster,
    servers: roster.servers.filter((s) => hostOfServer(s.server) === host),
    panes: roster.panes.filter((p) => hostOfServer(p.server) === host),
    agents: roster.agents.filter((a) => mine(a.host)),
    claims: roster.claims.filter((c) => mine(c.host)),
    problems: roster.problems.filter((p) => mine(p.host)),
    hosts: (roster.hosts ?? []).filter((h) => h.host === host),
  };
}

/** Why a host's part of the roster cannot be trusted at all, if it cannot. */
export function hostUnreachable(roster: Roster, host: string): string | undefined {
  return roster.problems.find((p) => p.probe === 'host' && (p.host ?? 'local') === host)?.error;
}
