import { performance } from 'node:perf_hooks';
import { fail, type Result } from '../../../shared/errors';
import { ancestors } from '../proc/lineage';
import type { ProcSnapshot } from '../proc/types';
import type { TmuxClient } from '../tmux/client';
import type { PaneRow } from '../tmux/format';

/** One server's `list-panes -a`, as TmuxClient.listPanes answers it. */
export type Listing = Result<{ running: boolean; panes: PaneRow[]; malformed: number }>;

/** How long a listing of another server is used again at most, however well it still fits. */
export const FOREIGN_MAX_AGE_MS = 30_000;

interface Kept {
  at: number;
  listing: Listing;
  /** The server's pid and every pane's pid, with the start time each had in the listing's snapshot. */
  starts: Map<number, string>;
  /** The pane processes alone (every pane process is the server's child, so the server is not one). */
  panes: Set<number>;
}

/**
 * Listings of other tmux servers (a person's, another tool's: found only through an agent's TMUX
 * variable) kept between refreshes. Such a server gets no held client (tmux/held.ts), so each
 * listing is a process; it is used again only while the fresh process table still fits it: the
 * server and every pane process run with the start times they had (no pane died or was respawned,
 * the server did not restart) and every agent the roster places on that server runs under one of
 * its panes. An agent in a pane made since, a pane gone, or `FOREIGN_MAX_AGE_MS` passed: listed
 * again. What such a listing can still miss is descriptive only (a pane moved to another session, a
 * renamed session, a new pane with no agent): custody decides from the processes' own evidence, and
 * Rigdesk's own servers and every server a live row names are listed fresh on every refresh.
 */
export class ForeignListings {
  private readonly kept = new Map<string, Kept>();
  constructor(
    private readonly clock: () => number = () => performance.now(),
    private readonly maxAgeMs = FOREIGN_MAX_AGE_MS,
  ) {}

  /** The kept listing of `key` if it still fits `snap` and places every one of `agentPids`. */
  reuse(key: string, snap: ProcSnapshot, agentPids: readonly number[]): Listing | undefined {
    const k = this.kept.get(key);
    if (!k) return undefined;
    const age = this.clock() - k.at;
    const fits =
      age >= 0 &&
      age < this.maxAgeMs &&
      [...k.starts].every(([pid, start]) => snap.byPid.get(pid)?.startTime === start) &&
      agentPids.every((pid) => k.panes.has(pid) || ancestors(snap, pid).some((a) => k.panes.has(a.pid)));
    if (!fits) this.kept.delete(key);
    return fits ? k.listing : undefined;
  }

  /**
   * Keeps a listing read against `snap`: only a whole one (the server running, every row read) whose
   * processes are all in that snapshot, so a later snapshot can be checked against it.
   */
  keep(key: string, listing: Listing, snap: ProcSnapshot): void {
    this.kept.delete(key);
    if (!listing.ok || !listing.running || listing.malformed > 0 || listing.panes.length === 0) return;
    const panes = new Set(listing.panes.map((r) => r.panePid));
    const starts = new Map<number, string>();
    for (const pid of [listing.panes[0]!.serverPid, ...panes]) {
      const p = snap.byPid.get(pid);
      if (!p) return; // a dead pane, or one newer than the snapshot: list it again next time
      starts.set(pid, p.startTime);
    }
    this.kept.set(key, { at: this.clock(), listing, starts, panes });
  }

  /** Drops the listings of servers the last refresh found no agent on. */
  keepOnly(keys: ReadonlySet<string>): void {
    for (const key of this.kept.keys()) if (!keys.has(key)) this.kept.delete(key);
  }
}

/** A server's listing; a client that throws is a listing that failed, never an unhandled rejection. */
export function listServer(client: TmuxClient): Promise<Listing> {
  return client
    .listPanes()
    .catch((e: unknown) => fail('TMUX_FAILED', `tmux list-panes failed on ${client.key}: ${String(e)}`));
}

/**
 * The servers found through agents (key -> socket path and the agents placed on it): each listed,
 * or its kept listing where it still fits the snapshot.
 */
export function askAgentServers(
  found: ReadonlyMap<string, { path: string; pids: number[] }>,
  snap: ProcSnapshot,
  clientForPath: (path: string) => TmuxClient,
  kept: ForeignListings | undefined,
): { client: TmuxClient; res: Promise<Listing> }[] {
  kept?.keepOnly(new Set(found.keys()));
  return [...found].map(([key, { path, pids }]) => {
    const client = clientForPath(path);
    const again = kept?.reuse(key, snap, pids);
    if (again) return { client, res: Promise.resolve(again) };
    const res = listServer(client).then((r) => {
      kept?.keep(key, r, snap);
      return r;
    });
    return { client, res };
  });
}
