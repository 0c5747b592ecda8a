import { type Failure, fail, type Result } from '../../../shared/errors';
import type { Roster } from '../roster/types';
import type { ServiceRole } from '../runtimes/types';
import { runtimeById } from '../runtimes';
import { sameConversations } from '../runtimes/family';
import type { SessionRow } from '../store';
import { hostUnreachable, rosterOnHost } from '../hosts/merge';
import { hostOfServer, parseServerKey, serverArgs } from '../tmux/identity';

/** Who holds a conversation, with enough to find it: a pane on some server, or a bare pid. */
export interface ConversationOwner {
  runtime: string;
  conversationId?: string;
  pid: number;
  startTime?: string;
  source: 'writer_lock' | 'live_state' | 'argv' | 'store' | 'unknown_conversation';
  home?: string;
  cwd?: string;
  server?: string;
  paneId?: string;
  sessionName?: string;
  sessionId?: string;
  seat?: string;
  headless: boolean;
  /** A runtime's background service (Codex's daemon), which serves its home and sits in no pane. */
  service?: ServiceRole;
}

export interface GuardQuery {
  runtime: string;
  conversationId: string;
  /** Folder of the conversation, for runtimes whose live processes cannot name theirs (Pi). */
  cwd?: string;
  /** Config home the caller intends to use; never a bypass, only reported on conflict. */
  home?: string;
  /** Processes that may hold it: the seat's own occupant when sending to it. */
  allowPids?: readonly number[];
  /** The seat's own live session row, excluded from store evidence. */
  allowSessionId?: number;
  /** The host the conversation lives on (a conversation is (host, runtime, id)); default this machine. */
  host?: string;
}

const describe = (o: ConversationOwner): string => {
  if (o.service)
    return `the ${runtimeById(o.runtime)?.displayName ?? o.runtime} daemon of ${o.home ?? 'an unknown home'} (pid ${o.pid})`;
  return o.paneId
    ? `pid ${o.pid} in tmux pane ${o.paneId}${o.sessionName ? ` (session "${o.sessionName}")` : ''} on ${o.server}`
    : `pid ${o.pid}${o.headless ? ' (headless, outside tmux)' : ''}`;
};

/** The next step for the person, given who holds the conversation. */
function ownerHint(o: ConversationOwner, host: string): string {
  if (o.service) {
    // `codex app-server daemon stop` would release it, but also leaves every other Codex of that home
    // stuck reconnecting: not a step to suggest for one thread.
    return `The daemon lets a thread go about a minute after the last Codex using it has closed and its turn has ended: close the Codex that has it open (a codex resume in CODEX_HOME=${o.home ?? '<its home>'}), then try again.`;
  }
  return o.paneId
    ? `Use that pane (${host === 'local' ? '' : `on host ${host}: `}tmux ${serverArgs(parseServerKey(o.server ?? 'L:default')).join(' ')} attach -t '${o.sessionId ?? o.paneId}'), or end it there first.`
    : `End pid ${o.pid} first, or let it finish.`;
}

/** What the guard found about a conversation: nobody else writes it, someone does, or it cannot tell. */
export type CustodyVerdict =
  | { kind: 'free'; checked: number }
  | { kind: 'owned'; owners: ConversationOwner[]; failure: Failure }
  | { kind: 'doubt'; failure: Failure };

/**
 * The single-writer guard (docs/architecture.md invariants 1 and 2). Reads a roster that the caller has just
 * refreshed and answers whether any other live process writes (runtime, conversationId).
 * Unknown evidence fails closed: an unreadable probe for this runtime refuses.
 */
export function checkConversationFree(
  fullRoster: Roster,
  q: GuardQuery,
  allRowsBound: readonly SessionRow[] = [],
): Result<{ checked: number }> {
  const v = judgeConversation(fullRoster, q, allRowsBound);
  return v.kind === 'free' ? { ok: true, checked: v.checked } : v.failure;
}

/** The guard's finding itself, for a caller that reports custody (`ps`) rather than refusing on it. */
export function judgeConversation(
  fullRoster: Roster,
  q: GuardQuery,
  allRowsBound: readonly SessionRow[] = [],
): CustodyVerdict {
  const host = q.host ?? 'local';
  const down = hostUnreachable(fullRoster, host);
  if (down !== undefined) {
    const failure = fail(
      'HOST_UNREACHABLE',
      `cannot prove who writes ${q.runtime} conversation ${q.conversationId}: host ${host} does not answer (${down})`,
      {
        hint: `Rigdesk will not start or resume it until ${host} answers again; check with rigdesk hosts check ${host}.`,
        evidence: { host, reason: down },
      },
    );
    return { kind: 'doubt', failure };
  }
  const roster = rosterOnHost(fullRoster, host);
  const liveRowsBound = allRowsBound.filter((row) => hostOfServer(row.server) === host);
  const unreadable = unreadableEvidence(roster, q, liveRowsBound);
  if (unreadable) return { kind: 'doubt', failure: unreadable };
  const owners = [...ownersOf(roster, q, liveRowsBound).values()];
  if (owners.length > 0) return { kind: 'owned', owners, failure: ownedElsewhere(owners, q, host) };
  const unnamed = unnamedDoubt(roster, q);
  if (unnamed) return { kind: 'doubt', failure: unnamed };
  return { kind: 'free', checked: roster.claims.length };
}

/** A probe for this runtime that could not be read, or a bound pane on a server that could not be listed. */
function unreadableEvidence(roster: Roster, q: GuardQuery, liveRowsBound: readonly SessionRow[]): Failure | undefined {
  const relevant = roster.problems.filter(
    (p) => p.probe !== 'tmux list-panes' && (p.runtime === undefined || sameConversations(p.runtime, q.runtime)),
  );
  if (relevant.length > 0) {
    return fail(
      'EVIDENCE_UNREADABLE',
      `cannot prove who writes ${q.runtime} conversation ${q.conversationId}: ${relevant[0]!.probe} unreadable (${relevant[0]!.error})`,
      {
        hint: 'Fix the permission or the file named in the evidence, then try again; Rigdesk will not guess.',
        evidence: { problems: relevant },
      },
    );
  }
  // A bound live row on a server whose panes could not be listed is unknown evidence, not absence.
  const blind = liveRowsBound
    .filter(
      (row) =>
        row.id !== q.allowSessionId &&
        sameConversations(row.runtime, q.runtime) &&
        row.conversationId === q.conversationId,
    )
    .map((row) => roster.problems.find((p) => p.probe === 'tmux list-panes' && p.server === row.server))
    .filter((p): p is NonNullable<typeof p> => p !== undefined);
  if (blind.length > 0) {
    return fail(
      'EVIDENCE_UNREADABLE',
      `cannot prove who writes ${q.runtime} conversation ${q.conversationId}: the tmux server of a pane bound to it could not be listed (${blind[0]!.error})`,
      {
        hint: 'Check that tmux server (rigdesk doctor), then try again; Rigdesk will not guess.',
        evidence: { problems: blind },
      },
    );
  }
  return undefined;
}

/** Every other live process that writes the conversation: by its claims, then by the store's bound panes. */
function ownersOf(roster: Roster, q: GuardQuery, liveRowsBound: readonly SessionRow[]): Map<number, ConversationOwner> {
  const allow = new Set(q.allowPids ?? []);
  const owners = new Map<number, ConversationOwner>();
  const agentByPid = new Map(roster.agents.map((a) => [a.pid, a]));
  for (const c of roster.claims) {
    if (!sameConversations(c.runtime, q.runtime) || c.conversationId !== q.conversationId || allow.has(c.pid)) continue;
    const a = agentByPid.get(c.pid);
    const prev = owners.get(c.pid);
    if (prev && prev.source !== 'argv') continue;
    owners.set(c.pid, {
      runtime: c.runtime,
      conversationId: c.conversationId,
      pid: c.pid,
      startTime: c.startTime,
      source: c.source,
      home: c.home ?? a?.home,
      cwd: a?.cwd,
      server: a?.pane?.server,
      paneId: a?.pane?.paneId,
      sessionName: a?.pane?.sessionName,
      sessionId: a?.pane?.sessionId,
      seat: a?.seatTag,
      headless: !a?.pane && !a?.service,
      ...(a?.service ? { service: a.service } : {}),
    });
  }
  // Store evidence: a live row bound to the conversation whose pane still exists with its pid.
  for (const row of liveRowsBound) {
    if (
      row.id === q.allowSessionId ||
      !sameConversations(row.runtime, q.runtime) ||
      row.conversationId !== q.conversationId
    )
      continue;
    const pane = roster.panes.find(
      (p) =>
        p.server === row.server &&
        p.paneId === row.paneId &&
        p.panePid === row.panePid &&
        p.sessionId === row.sessionId,
    );
    if (!pane || allow.has(pane.agent?.pid ?? -1)) continue;
    const pid = pane.agent?.pid ?? pane.panePid;
    if (!owners.has(pid)) {
      owners.set(pid, {
        runtime: row.runtime,
        conversationId: row.conversationId ?? undefined,
        pid,
        source: 'store',
        server: row.server,
        paneId: row.paneId,
        sessionName: row.sessionName,
        sessionId: row.sessionId,
        seat: row.seat,
        headless: false,
      });
    }
  }
  return owners;
}

function ownedElsewhere(list: readonly ConversationOwner[], q: GuardQuery, host: string): Failure {
  const homeConflict = q.home !== undefined && list.some((o) => o.home !== undefined && o.home !== q.home);
  return fail(
    'CONVERSATION_LIVE_ELSEWHERE',
    `${q.runtime} conversation ${q.conversationId} is already open in ${describe(list[0]!)}${list.length > 1 ? ` and ${list.length - 1} more` : ''}`,
    {
      hint: ownerHint(list[0]!, host),
      evidence: { host, owners: list, ...(homeConflict ? { homeConflict: true, requestedHome: q.home } : {}) },
    },
  );
}

/** A live process of this runtime in the same folder whose conversation nobody can name: doubt refuses. */
function unnamedDoubt(roster: Roster, q: GuardQuery): Failure | undefined {
  if (!q.cwd) return undefined;
  const allow = new Set(q.allowPids ?? []);
  const doubt = roster.agents.filter(
    (a) =>
      sameConversations(a.runtime, q.runtime) &&
      a.conversationId === undefined &&
      a.cwd === q.cwd &&
      !allow.has(a.pid) &&
      (q.home === undefined || a.home === undefined || a.home === q.home),
  );
  if (doubt.length === 0 || runtimeById(q.runtime)?.doubtsUnnamed !== true) return undefined;
  const d = doubt[0]!;
  return fail(
    'CONVERSATION_OWNER_UNKNOWN',
    `a live ${q.runtime} process (pid ${d.pid}) runs in ${q.cwd} and nothing proves which conversation it writes; it may be ${q.conversationId}`,
    {
      hint: 'End that process, or wait for it to finish, then try again.',
      evidence: { candidates: doubt.map((a) => ({ pid: a.pid, cwd: a.cwd, home: a.home, pane: a.pane })) },
    },
  );
}
