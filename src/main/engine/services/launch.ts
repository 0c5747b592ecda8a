import { existsSync, realpathSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { fail, type Failure, type Result } from '../../../shared/errors';
import { checkConversationFree } from '../custody/guard';
import { resolveStaleReservation } from '../custody/census';
import { sessionGone } from '../custody/gone';
import type { Engine } from '../engine';
import { runtimeById, type LaunchContext, type RuntimeAdapter, type SeatPrepInput } from '../runtimes';
import type { Roster } from '../roster/types';
import { scrubIdentity, wrapForPane } from '../runtimes/env';
import { installClaudeHooks } from '../runtimes/hooks/claude';
import { installCodexNotify } from '../runtimes/hooks/codex';
import type { LaunchPlan, SeatRow } from '../store';
import { findSeat, INSTALL_HINTS, whichOnPath } from './resolve';
import { hostOfServer } from '../tmux/identity';
import { launchRemote } from './launch-remote';

export interface LaunchResult {
  seat: string;
  mode: 'fresh' | 'resume';
  runtime: string;
  conversationId?: string;
  server: string;
  sessionName: string;
  sessionId: string;
  paneId: string;
  panePid: number;
  attach: string[];
}

export async function launchSeat(engine: Engine, ref: unknown, opts: { fresh?: boolean } = {}): Promise<Result<{ launched: LaunchResult }>> {
  const found = findSeat(engine, ref);
  if (!found.ok) return found;
  const res = await launchRow(engine, found.seat, opts);
  if (!res.ok) engine.store.events.append('seat.launch_refused', { rig: found.seat.rig, seat: found.seat.seat }, { code: res.code, message: res.message, evidence: res.evidence ?? {} });
  return res;
}

/** Chooses the agent's argv once the seat is known free to launch; custody checks belong here. */
export type ArgvChooser = (input: { engine: Engine; seat: SeatRow; adapter: RuntimeAdapter; ctx: LaunchContext; roster: Roster }) => Result<{ argv: string[]; plan: LaunchPlan }>;

/** The default: resume the seat's last conversation when it has one and the runtime can; else fresh. */
const resumeOrFresh = (opts: { fresh?: boolean }): ArgvChooser => ({ engine, seat, adapter, ctx, roster }) => {
  const resume = !opts.fresh && adapter.canResume && seat.restorePolicy !== 'fresh' && seat.conversationId !== null;
  if (resume) {
    const conversationId = seat.conversationId!;
    const cwd = seat.host === 'local' ? realpathSync(seat.cwd) : seat.cwd;
    const free = checkConversationFree(roster, { runtime: adapter.id, conversationId, cwd, home: ctx.home, host: seat.host }, engine.store.sessions.liveBoundTo(adapter.id, conversationId));
    if (!free.ok) return free;
    return { ok: true, argv: adapter.resumeArgv(ctx, conversationId), plan: { mode: 'resume', runtime: adapter.id, conversationId } };
  }
  const f = adapter.freshArgv(ctx);
  return { ok: true, argv: f.argv, plan: { mode: 'fresh', runtime: adapter.id, ...(f.conversationId ? { conversationId: f.conversationId } : {}) } };
};

async function launchRow(engine: Engine, seat: SeatRow, opts: { fresh?: boolean }): Promise<Result<{ launched: LaunchResult }>> {
  return launchSeatWith(engine, seat, resumeOrFresh(opts));
}

/**
 * Launches a seat with an argv of the caller's choosing (fork, restore) through the same checks
 * and the same create fence as every launch.
 */
export async function launchSeatWith(engine: Engine, seat: SeatRow, choose: ArgvChooser): Promise<Result<{ launched: LaunchResult }>> {
  const adapter = runtimeById(seat.runtime);
  if (!adapter) return fail('RUNTIME_UNKNOWN', `seat ${seat.seat} names runtime "${seat.runtime}", which this Rigdesk does not know`);
  if (seat.host !== 'local') return launchRemote(engine, seat, adapter, choose);
  if (!existsSync(seat.cwd) || !statSync(seat.cwd).isDirectory()) {
    return fail('CWD_MISSING', `working folder of ${seat.seat} does not exist: ${seat.cwd}`, { hint: 'Create it, or fix cwd in the rig spec and run rigdesk up again.', evidence: { cwd: seat.cwd } });
  }
  const seatEnv = { ...scrubIdentity(engine.deps.env), ...seat.env };
  const program = adapter.binary ?? seat.command ?? engine.deps.env.SHELL ?? '/bin/sh';
  const binary = whichOnPath(seat.command && adapter.id !== 'shell' ? seat.command : program, seatEnv.PATH);
  if (!binary) {
    return fail('RUNTIME_NOT_INSTALLED', `${adapter.displayName} (${program}) is not on the PATH of seat ${seat.seat}`, {
      hint: INSTALL_HINTS[adapter.id] ? `Install it (${INSTALL_HINTS[adapter.id]}) or set PATH in the seat's env.` : `Install ${program}, or set the seat's command to a full path.`,
      evidence: { program, PATH: seatEnv.PATH ?? '' },
    });
  }

  const roster = await engine.roster();
  const ownListing = roster.servers.find((s) => s.server === engine.ownKey);
  if (!ownListing) return fail('TMUX_FAILED', 'could not list Rigdesk\'s tmux server', { evidence: { problems: roster.problems } });

  // A reservation left by a launch that died is settled by census before anything else.
  const stale = engine.store.reservations.active(seat.seat);
  if (stale) {
    const settled = await resolveStaleReservation(engine, stale, roster);
    if (!settled.ok) return settled;
  }
  // A live row whose session is gone is history now; one whose session is there means running.
  const live = engine.store.sessions.live(seat.seat);
  if (live) {
    const running = () => fail('SEAT_ALREADY_RUNNING', `${seat.seat} is already running in pane ${live.paneId}`, { evidence: { paneId: live.paneId, sessionId: live.sessionId } });
    if (engine.paneOf(roster, live)) return running();
    // Missing from the roster is not gone: another launch may have created it a moment ago.
    const state = await sessionGone(engine, live);
    if (state === 'present') return running();
    if (state === 'unknown') return fail('EVIDENCE_UNREADABLE', `cannot tell whether ${seat.seat}'s earlier session still runs`, { evidence: { problems: roster.problems } });
    engine.store.sessions.end(live.id, 'gone');
    engine.store.events.append('seat.already_gone', { rig: seat.rig, seat: seat.seat }, { sessionId: live.sessionId, paneId: live.paneId, found: 'at launch' });
  }

  const ctx: LaunchContext = { binary, cwd: seat.cwd, args: seat.args, home: engine.seatHome(seat), newId: engine.deps.newId };
  const chosen = choose({ engine, seat, adapter, ctx, roster });
  if (!chosen.ok) return chosen;
  // Activity hooks go only into a config the seat isolates for itself, never a person's default.
  if (adapter.id === 'claude-code' && seat.env.CLAUDE_CONFIG_DIR) installClaudeHooks(seat.env.CLAUDE_CONFIG_DIR, engine.deps.layout.hooksDir, seat.seat);
  if (adapter.id === 'codex' && seat.env.CODEX_HOME) installCodexNotify(seat.env.CODEX_HOME, engine.deps.layout.hooksDir, seat.seat);
  const prepared = adapter.prepareSeat?.(seatPrepInput(engine, seat, seatEnv), { write: true });
  if (prepared && !prepared.ok) return prepared;
  const { argv, plan } = chosen;
  const extraEnv = adapter.seatEnv?.({ seatDir: join(engine.deps.layout.home, 'seats', seat.seat), env: seat.env }) ?? {};
  return createBehindFence(engine, seat, plan, wrapForPane(argv), roster, extraEnv);
}

/** What a runtime's own pre-launch step (and doctor) is given for a seat. */
export function seatPrepInput(engine: Engine, seat: SeatRow, env: Record<string, string | undefined>): SeatPrepInput {
  let cwd = seat.cwd;
  try {
    cwd = realpathSync(seat.cwd);
  } catch {
    /* a missing folder is launch's to report */
  }
  return { seat: seat.seat, seatEnv: seat.env, env, cwd, home: engine.seatHome(seat) ?? engine.deps.userHome, userHome: engine.deps.userHome };
}

/** Design.md invariant 3: reserved -> helper_invoked -> created -> released (or abandoned). */
export async function createBehindFence(engine: Engine, seat: SeatRow, plan: LaunchPlan, paneArgv: string[], roster: Awaited<ReturnType<Engine['roster']>>, extraEnv: Record<string, string> = {}): Promise<Result<{ launched: LaunchResult }>> {
  const { store, faults } = { store: engine.store, faults: engine.deps.faults };
  const self = engine.deps.proc.read(engine.deps.selfPid);
  const attempt = engine.deps.newId();
  const sessionName = seat.seat;
  const tmux = engine.ownOn(seat.host);
  const input = { seat: seat.seat, attempt, holderPid: engine.deps.selfPid, holderStart: self?.startTime ?? null, server: tmux.key, sessionName, plan };
  const precondition = () => (store.sessions.live(seat.seat) ? 'running' : undefined);
  let taken = store.reservations.reserve(input, precondition);
  if (!taken.ok && 'existing' in taken) {
    const census = await resolveStaleReservation(engine, taken.existing, roster);
    if (!census.ok) return census;
    taken = store.reservations.reserve(input, precondition);
  }
  if (!taken.ok) {
    if ('refused' in taken) return fail('SEAT_ALREADY_RUNNING', `${seat.seat} was launched by someone else a moment ago`);
    return launchInProgress(seat.seat, taken.existing);
  }
  const r = taken.row;
  store.events.append('fence.reserved', { rig: seat.rig, seat: seat.seat }, { reservation: r.id, attempt, plan });
  await faults['fence.after_reserved']?.();

  if (!store.reservations.advance(r.id, 'reserved', 'helper_invoked')) return fail('LAUNCH_IN_PROGRESS', `reservation ${r.id} for ${seat.seat} was taken over`);
  store.events.append('fence.helper_invoked', { rig: seat.rig, seat: seat.seat }, { reservation: r.id, attempt, sessionName });
  const created = await tmux.newSession({
    name: sessionName, cwd: seat.cwd, seat: seat.seat, attempt,
    env: { ...extraEnv, ...seat.env, RIGDESK_SEAT: seat.seat, RIGDESK_ATTEMPT: attempt },
    argv: paneArgv,
  });
  await faults['fence.after_helper_invoked']?.();
  if (!created.ok) {
    store.reservations.advance(r.id, 'helper_invoked', 'abandoned', { outcome: `create failed: ${created.code}` });
    store.events.append('fence.abandoned', { rig: seat.rig, seat: seat.seat }, { reservation: r.id, code: created.code, message: created.message });
    return created;
  }
  const id = created.identity;
  const pp = await engine.procNow(id.server, id.panePid);
  const panePidStart = pp && pp !== 'unknown' ? pp.startTime : null;
  store.db.transaction(() => {
    store.reservations.advance(r.id, 'helper_invoked', 'created', { identity: id });
    store.sessions.insertLive(seat.seat, plan.runtime, id, { panePidStart, conversationId: plan.conversationId ?? null });
    if (plan.conversationId) {
      store.rigs.setConversation(seat.seat, plan.conversationId);
      store.conversations.record({ runtime: plan.runtime, id: plan.conversationId, seat: seat.seat, home: engine.seatHome(seat) ?? null, cwd: seat.cwd, host: seat.host });
    }
    store.rigs.setStoppedOnPurpose(seat.seat, false);
    store.events.append('seat.identity_bound', { rig: seat.rig, seat: seat.seat }, { ...id, attempt, conversationId: plan.conversationId ?? null });
  }).immediate();
  await faults['fence.after_created']?.();
  store.reservations.advance(r.id, 'created', 'released', { outcome: 'launched' });
  store.events.append('seat.launch', { rig: seat.rig, seat: seat.seat }, { mode: plan.mode, runtime: plan.runtime, conversationId: plan.conversationId ?? null, sessionId: id.sessionId, paneId: id.paneId });
  return {
    ok: true,
    launched: {
      seat: seat.seat, mode: plan.mode, runtime: plan.runtime, conversationId: plan.conversationId, server: id.server,
      sessionName, sessionId: id.sessionId, paneId: id.paneId, panePid: id.panePid, attach: attachArgv(engine, id.sessionId, id.server),
    },
  };
}

function launchInProgress(seat: string, row: { id: number; holderPid: number; phase: string }): Failure {
  return fail('LAUNCH_IN_PROGRESS', `${seat} is being launched by another process (pid ${row.holderPid}, phase ${row.phase})`, {
    hint: 'Wait for it to finish, then check with rigdesk ps.',
    evidence: { reservation: row.id, holderPid: row.holderPid, phase: row.phase },
  });
}

export function attachArgv(engine: Engine, sessionId: string, server: string = engine.ownKey): string[] {
  const host = hostOfServer(server);
  if (host !== 'local') {
    const h = engine.hosts.get(host);
    if (h) return h.attachArgv(sessionId);
  }
  const s = engine.deps.layout.tmuxServer;
  return ['tmux', ...(s.kind === 'name' ? ['-L', s.name] : ['-S', s.path]), 'attach-session', '-t', sessionId];
}
