import { checkConversationFree } from '../custody/guard';
import { isLocal } from '../hosts/types';
import { cwdOn, realOrSame } from '../custody/cwd';
import type { Ports } from '../ports';
import type { Roster, RosterPane } from '../roster/types';
import { keepsConversations, runtimeById } from '../runtimes';
import type { SeatRow, SessionRow } from '../store';
import type { SnapshotSeat } from '../store/restore-repos';
import type { LiveFact, SeatFacts, TranscriptFact } from './decide';
import { conversationFamily } from '../runtimes/family';
import { paneOf, serverRunning } from '../roster/lookup';

/**
 * The thin live adapter in front of the decision table: reads the store, a roster the caller has
 * just refreshed, and the runtime's transcript files, and answers only facts. It decides nothing.
 */

/** The seat's own pane, when its live row's immutable identity is on a listed server. */
export function ownPane(
  ports: Pick<Ports, 'store'>,
  roster: Roster,
  seat: string,
): { live?: SessionRow; pane?: RosterPane; running: SeatFacts['running'] } {
  const live = ports.store.sessions.live(seat);
  if (!live) return { running: 'not_running' };
  const pane = paneOf(roster, live);
  if (pane) return { live, pane, running: 'running' };
  const listed =
    serverRunning(roster, live.server) !== undefined && !roster.problems.some((p) => p.server === live.server);
  return { live, running: listed ? 'not_running' : 'unknown' };
}

/**
 * This machine's transcript evidence. A seat on another host is never judged by this machine's
 * files: it reads `unknown` here (snapshots), and restore reads the host itself (./remote-facts.ts).
 */
export function transcriptFact(
  ports: Pick<Ports, 'fs' | 'io' | 'seatHome'>,
  seat: Pick<SeatRow, 'runtime' | 'env' | 'cwd'> & { host?: string },
  conversationId: string,
): TranscriptFact {
  if (!isLocal(seat.host)) return { state: 'unknown' };
  const adapter = runtimeById(seat.runtime);
  const home = ports.seatHome(seat);
  if (!adapter?.transcriptPath || !home) return { state: 'unknown' };
  try {
    const p = adapter.transcriptPath(home, realOrSame(ports.fs, seat.cwd), conversationId, ports.io);
    if (p) return { state: 'present', path: p };
  } catch (e) {
    return { state: 'unreadable', error: `${(e as NodeJS.ErrnoException).code ?? ''} ${(e as Error).message}`.trim() };
  }
  // `exists` says false for a file it may not look at: only a readable home makes "missing" a fact.
  try {
    ports.fs.accessSync(home, ports.fs.constants.R_OK | ports.fs.constants.X_OK);
  } catch (e) {
    const code = (e as NodeJS.ErrnoException).code;
    if (code !== 'ENOENT' && code !== 'ENOTDIR')
      return { state: 'unreadable', error: `${code ?? ''} ${home}: ${(e as Error).message}`.trim() };
  }
  return { state: 'missing', looked: home };
}

export function liveFact(
  ports: Pick<Ports, 'fs' | 'seatHome' | 'store'>,
  roster: Roster,
  seat: Pick<SeatRow, 'runtime' | 'env' | 'cwd'> & { host?: string },
  conversationId: string,
  own?: { live?: SessionRow; pane?: RosterPane },
): LiveFact {
  const free = checkConversationFree(
    roster,
    {
      runtime: seat.runtime,
      conversationId,
      cwd: cwdOn(ports.fs, seat),
      home: ports.seatHome(seat),
      host: seat.host,
      allowPids: own?.pane?.agent ? [own.pane.agent.pid] : [],
      allowSessionId: own?.pane ? own.live?.id : undefined,
    },
    ports.store.sessions.liveBoundTo(conversationFamily(seat.runtime), conversationId),
  );
  if (free.ok) return { state: 'free' };
  if (free.code === 'CONVERSATION_LIVE_ELSEWHERE')
    return { state: 'owned_elsewhere', message: free.message, evidence: free.evidence ?? {} };
  return { state: 'unprovable', code: free.code, message: free.message, evidence: free.evidence ?? {} };
}

/**
 * Facts for one seat of a snapshot. The snapshot's conversation and flags win over the store's.
 * `hostTranscript` is the transcript fact read on the seat's host, for a seat on another host.
 */
export function seatFacts(
  ports: Pick<Ports, 'fs' | 'io' | 'seatHome' | 'store'>,
  roster: Roster,
  snap: SnapshotSeat,
  row: SeatRow,
  hostTranscript?: TranscriptFact,
): SeatFacts {
  const adapter = runtimeById(row.runtime);
  const own = ownPane(ports, roster, row.seat);
  const hasConversations = keepsConversations(row.runtime);
  const cid = snap.conversationId;
  // The host goes with the seat: custody reads that host's roster, and its home means that host's folder.
  const seatLike = { runtime: row.runtime, env: row.env, cwd: row.cwd, host: row.host };
  const needsCustody = cid !== null && hasConversations && own.running !== 'running';
  return {
    seat: row.seat,
    runtime: row.runtime,
    runtimeKnown: adapter !== undefined,
    canResume: adapter?.canResume ?? false,
    hasConversations,
    restorePolicy: row.restorePolicy,
    conversationId: cid,
    stoppedOnPurpose: snap.stoppedOnPurpose,
    everRan: ports.store.restore.everRan(row.seat),
    running: own.running,
    transcript:
      cid === null || !hasConversations
        ? { state: 'unknown' }
        : (hostTranscript ?? transcriptFact(ports, seatLike, cid)),
    live: needsCustody ? liveFact(ports, roster, seatLike, cid, own) : { state: 'free' },
  };
}
