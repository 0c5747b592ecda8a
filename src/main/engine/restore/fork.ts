import type { ForkAnswer, ForkPlan, ForkResult, TranscriptFact } from '../../../shared/contract';
import { fail, type Result } from '../../../shared/errors';
import { checkConversationFree } from '../custody/guard';
import type { Ports } from '../ports';
import { launchSeatWith, type ArgvChooser } from '../seats/launch';
import type { Roster } from '../roster/types';
import { RUNTIMES, runtimeById, type RuntimeAdapter } from '../runtimes';
import { validateName, seatAddress } from '../spec/names';
import type { SeatRow } from '../store';
import { insertSeat, removeUnusedSeat } from '../store/restore-seats';
import { cwdOn } from '../custody/cwd';
import { ownPane, transcriptFact } from './facts';
import { type ForkEnd, proveFork } from './fork-prove';
import { forkHostGate, sourceTranscript } from './fork-remote';
import type { VerifyOptions } from './verify';
import { conversationFamily } from '../runtimes/family';
import type { RestorePorts } from './ports';

/**
 * `rigdesk fork <seat> --as <member>`: a new seat in the same rig and pod, with the source's
 * runtime, folder, command, args, env (so the same config home) and restore policy, whose
 * conversation is a fork of the source's:
 *  - Claude Code: `claude --resume X --fork-session --session-id NEW` (NEW chosen up front);
 *  - Codex: `codex fork X` (NEW is read from the thread writer lock its process takes).
 *
 * Custody. A fork reads X and writes only NEW; both CLIs were checked to leave X's transcript
 * byte-for-byte unchanged, and neither fork process claims X (Claude's argv names NEW through
 * --fork-session --session-id, its live-state file names NEW; Codex's lock is on NEW). So X
 * being written by the source seat's own occupant is allowed: the fork copies X as it is on disk
 * at that moment. X open in any *other* process (a hand-started one, another seat) is refused
 * with CONVERSATION_LIVE_ELSEWHERE: Rigdesk cannot see where that writer is in its turn or
 * whether it still writes X at all, and a fork of a conversation someone else is driving is not
 * what `fork <seat>` promises. Unreadable evidence refuses too (fail closed). Pi is refused: its
 * live processes cannot name their session (custody is doubt only) and `pi --fork` is untested.
 *
 * The new id is checked free like any launch; the new seat is recorded only after every check,
 * and removed again if its launch is refused before anything was created.
 *
 * A source on another host is forked on that host, by the same rules read from there
 * (./fork-remote.ts): its process and custody from the host's roster, X's transcript asked on
 * the host; the new seat gets the same host and is launched through launchRemote; verification
 * reads the host's roster. An unknown host refuses (HOST_NOT_FOUND), one that does not answer
 * refuses (HOST_UNREACHABLE), both before anything is recorded.
 *
 * What the fork's transcript holds: Claude copies X's history into NEW's file (re-stamped with
 * NEW's id); Codex 0.171 records the fork by reference (NEW's session_meta names `forked_from_id`
 * X and a `history_base` in X's rollout), so X's rollout must stay on disk for NEW to resume.
 * The forked seat is recorded in the store, not in the rig's spec file: `up` from the spec does
 * not launch it, `down`, `ps`, snapshots and restore include it.
 */

export type { ForkPlan, ForkResult };

/** Which conversation the source seat has now, proven; or why that cannot be said. */
function sourceConversation(
  ports: Pick<Ports, 'store'>,
  roster: Roster,
  source: SeatRow,
): Result<{
  id: string;
  evidence: ForkPlan['fromEvidence'];
  agentPid?: number;
  liveSessionRow?: number;
  running: boolean;
}> {
  const own = ownPane(ports, roster, source.seat);
  if (own.running === 'unknown')
    return fail('EVIDENCE_UNREADABLE', `cannot tell whether ${source.seat}'s session still runs; nothing was created`, {
      evidence: { problems: roster.problems },
    });
  if (own.running === 'running') {
    const agent = own.pane?.agent;
    if (!agent?.conversationId) {
      return fail(
        'CONVERSATION_OWNER_UNKNOWN',
        `${source.seat} is running but no process in its pane names its conversation; nothing was created`,
        {
          hint: 'Wait for the agent to start (Codex names its thread once it holds it), then fork again.',
          evidence: {
            paneId: own.pane?.paneId,
            lineage: own.pane?.lineage,
            storeConversationId: source.conversationId,
          },
        },
      );
    }
    return {
      ok: true,
      id: agent.conversationId,
      running: true,
      agentPid: agent.pid,
      liveSessionRow: own.live?.id,
      evidence: { source: `roster:${agent.conversationSource}`, pid: agent.pid, paneId: own.pane?.paneId },
    };
  }
  if (!source.conversationId) {
    return fail('BAD_USAGE', `${source.seat} has no recorded conversation to fork`, {
      hint: `Launch ${source.seat} and give it a turn first.`,
    });
  }
  return { ok: true, id: source.conversationId, running: false, evidence: { source: 'store' } };
}

function custody(
  ports: Pick<Ports, 'fs' | 'seatHome' | 'store'>,
  roster: Roster,
  source: SeatRow,
  from: { id: string; agentPid?: number; liveSessionRow?: number },
): Result {
  const free = checkConversationFree(
    roster,
    {
      runtime: source.runtime,
      conversationId: from.id,
      cwd: cwdOn(ports.fs, source),
      home: ports.seatHome(source),
      host: source.host,
      allowPids: from.agentPid !== undefined ? [from.agentPid] : [],
      allowSessionId: from.liveSessionRow,
    },
    ports.store.sessions.liveBoundTo(conversationFamily(source.runtime), from.id),
  );
  if (free.ok) return free;
  return {
    ...free,
    message: `${free.message}; a fork reads it, and only the source seat's own occupant may be writing it. Nothing was created`,
  };
}

export async function forkSeat(
  ports: RestorePorts,
  ref: unknown,
  as: unknown,
  opts: { plan?: boolean; verify?: Partial<VerifyOptions> } = {},
): Promise<Result<ForkAnswer>> {
  const target = forkTarget(ports, ref, as);
  if (!target.ok) return target;
  const { source, adapter } = target;
  const roster = await ports.roster();
  const down = forkHostGate(ports, source, roster);
  if (down) return down;
  const from = sourceConversation(ports, roster, source);
  if (!from.ok) return from;
  const read = await sourceTranscript(ports, roster, source, from.id);
  if (!read.ok) return read;
  const t = read.fact;
  if (t.state === 'unreadable' || t.state === 'unknown') {
    return fail(
      'EVIDENCE_UNREADABLE',
      `cannot read the transcript of ${from.id}${t.state === 'unreadable' ? `: ${t.error}` : ''}; nothing was created`,
      { evidence: { transcript: t } },
    );
  }
  if (t.state === 'missing')
    return fail(
      'CONVERSATION_MISSING',
      `no transcript for ${from.id} (looked in ${t.looked}); there is nothing to fork`,
      { evidence: { transcript: t } },
    );
  const free = custody(ports, roster, source, from);
  if (!free.ok) return free;

  const plan: ForkPlan = {
    source: source.seat,
    seat: target.seat,
    runtime: adapter.id,
    from: from.id,
    fromEvidence: from.evidence,
    transcript: t.path,
    sourceRunning: from.running,
  };
  if (opts.plan) return { ok: true, plan };
  return launchFork(ports, { ...target, plan, transcript: t }, opts);
}

/** The source seat, the new seat's address and the runtime, each checked; nothing is read live yet. */
function forkTarget(
  ports: Pick<Ports, 'hosts' | 'store'>,
  ref: unknown,
  as: unknown,
): Result<{ source: SeatRow; seat: string; member: string; adapter: RuntimeAdapter }> {
  const found = ports.store.rigs.find(ref);
  if (!found.ok) return found;
  const source = found.seat;
  const gate = forkHostGate(ports, source);
  if (gate) return gate;
  const name = validateName('member', as);
  if (!name.ok) return name;
  const seat = seatAddress(name.name, source.rig);
  if (ports.store.rigs.seat(seat)) {
    return fail('SEAT_EXISTS', `${seat} already exists; a fork makes a new seat`, {
      hint: 'Choose a member name not yet used in this rig.',
      evidence: { seat, exists: true },
    });
  }
  const adapter = runtimeById(source.runtime);
  if (!adapter)
    return fail(
      'RUNTIME_UNKNOWN',
      `seat ${source.seat} names runtime "${source.runtime}", which this Rigdesk does not know`,
    );
  if (!adapter.forkArgv) {
    const forkable = RUNTIMES.filter((r) => r.forkArgv).map((r) => r.displayName);
    return fail(
      'BAD_USAGE',
      `${source.seat} runs ${adapter.displayName}, which Rigdesk cannot fork${adapter.whyNoFork ?? ' yet'}; nothing was created`,
      {
        hint: `Fork a ${forkable.join(' or ')} seat, or start a new seat and give it the context yourself.`,
        evidence: { runtime: adapter.id },
      },
    );
  }
  return { ok: true, source, seat, member: name.name, adapter };
}

interface ForkLaunch {
  source: SeatRow;
  seat: string;
  member: string;
  adapter: RuntimeAdapter;
  plan: ForkPlan;
  transcript: TranscriptFact;
}

/** Records the new seat, launches the fork behind the fence and proves it; a refused launch leaves no seat. */
async function launchFork(
  ports: RestorePorts,
  f: ForkLaunch,
  opts: { verify?: Partial<VerifyOptions> },
): Promise<Result<ForkAnswer>> {
  const { source, seat, plan } = f;
  const row: Omit<SeatRow, 'conversationId' | 'stoppedOnPurpose'> = {
    host: source.host,
    seat,
    rig: source.rig,
    pod: source.pod,
    member: f.member,
    runtime: source.runtime,
    cwd: source.cwd,
    command: source.command,
    args: source.args,
    env: source.env,
    restorePolicy: source.restorePolicy,
    ...(source.worktree ? { worktree: source.worktree } : {}),
    ...(source.checks ? { checks: source.checks } : {}),
  };
  if (!insertSeat(ports.store, row, ports.clock.now()))
    return fail('SEAT_EXISTS', `${seat} was created by someone else a moment ago`, {
      evidence: { seat, exists: true },
    });
  const repos = ports.store.restore;
  const where = { rig: source.rig, seat };
  repos.event('seat.fork', where, {
    step: 'begin',
    source: source.seat,
    from: plan.from,
    fromEvidence: plan.fromEvidence,
    transcript: plan.transcript,
  });
  const launched = await launchSeatWith(
    ports,
    { ...row, conversationId: null, stoppedOnPurpose: false },
    forkChooser(f),
  );
  if (!launched.ok) {
    const removed = removeUnusedSeat(ports.store, seat);
    repos.event('seat.fork', where, {
      step: 'refused',
      code: launched.code,
      message: launched.message,
      seatRemoved: removed,
    });
    return { ...launched, message: `${launched.message}${removed ? ` (${seat} was not kept)` : ''}` };
  }
  const l = launched.launched;
  const live = ports.store.sessions.live(seat);
  const result: ForkEnd =
    !live || live.sessionId !== l.sessionId
      ? {
          seat,
          outcome: 'failed',
          code: 'TARGET_CHANGED',
          why: 'the session row changed under the fork',
          from: plan.from,
          paneId: l.paneId,
          sessionId: l.sessionId,
        }
      : await proveFork(ports, { seat, rig: source.rig, from: plan.from, adapter: f.adapter, live, launched: l }, opts);
  repos.event('seat.fork', where, { step: 'end', source: source.seat, ...result });
  if (result.outcome === 'failed') return fail(result.code, `${seat}: ${result.why}`, { evidence: { result } });
  return {
    ok: true,
    plan: { ...plan, ...(result.conversationId ? { conversationId: result.conversationId } : {}) },
    result,
  };
}

/** Checked again on the launch's own fresh roster: X may have changed hands since. */
function forkChooser({ source, plan, adapter, transcript: t }: ForkLaunch): ArgvChooser {
  const from = plan.from;
  return async ({ ports, ctx, roster }) => {
    const r = await roster();
    const again = sourceConversation(ports, r, source);
    if (!again.ok) return again;
    if (again.id !== from)
      return fail(
        'TARGET_CHANGED',
        `${source.seat} moved from ${from} to ${again.id} while the fork was prepared; nothing was created`,
        { evidence: { was: from, now: again.id } },
      );
    // On a host the transcript was read a moment ago (one round trip; this step cannot wait on
    // another): a file gone since makes Claude report X missing, which verification catches.
    const tt = source.host === 'local' ? transcriptFact(ports, source, from) : t;
    if (tt.state !== 'present')
      return fail(
        'EVIDENCE_UNREADABLE',
        `the transcript of ${from} is no longer readable (${tt.state}); nothing was created`,
        { evidence: { transcript: tt } },
      );
    const ok = custody(ports, r, source, again);
    if (!ok.ok) return ok;
    const fork = adapter.forkArgv!(ctx, from);
    return {
      ok: true,
      argv: fork.argv,
      plan: {
        mode: 'fresh',
        runtime: adapter.id,
        ...(fork.conversationId ? { conversationId: fork.conversationId } : {}),
      },
    };
  };
}
