import { join } from 'node:path';
import type { LaunchedSeat } from '../../../shared/contract';
import { fail, type Result } from '../../../shared/errors';
import { checkConversationFree } from '../custody/guard';
import type { Ports } from '../ports';
import { runtimeById, seatHookHome, type SeatPrepInput } from '../runtimes';
import { scrubIdentity, wrapForPane } from '../runtimes/env';
import type { SeatRow } from '../store';
import { whichOnPath } from '../runtimes/install';
import { settingsIO } from '../runtimes/json-settings';
import { launchRemote } from './launch-remote';
import { createBehindFence, launchRoster, settleEarlier, type ArgvChooser } from './fence';
import { conversationFamily } from '../runtimes/family';
import { launchContext } from './launch-context';
import type { LaunchPorts } from './ports';
import { ensureSeatWorktree } from './worktree';

export { createBehindFence, type ArgvChooser, type LaunchRoster } from './fence';

export async function launchSeat(
  ports: LaunchPorts,
  ref: unknown,
  opts: { fresh?: boolean } = {},
): Promise<Result<{ launched: LaunchedSeat }>> {
  const found = ports.store.rigs.find(ref);
  if (!found.ok) return found;
  const res = await launchRow(ports, found.seat, opts);
  if (!res.ok)
    ports.store.events.append(
      'seat.launch_refused',
      { rig: found.seat.rig, seat: found.seat.seat },
      { code: res.code, message: res.message, evidence: res.evidence ?? {} },
    );
  return res;
}

/** The default: resume the seat's last conversation when it has one and the runtime can; else fresh. */
const resumeOrFresh =
  (opts: { fresh?: boolean }): ArgvChooser =>
  async ({ ports, seat, adapter, ctx, roster }) => {
    const resume = !opts.fresh && adapter.canResume && seat.restorePolicy !== 'fresh' && seat.conversationId !== null;
    if (resume) {
      const conversationId = seat.conversationId!;
      const cwd = seat.host === 'local' ? ports.fs.realpathSync(seat.cwd) : seat.cwd;
      const free = checkConversationFree(
        await roster(),
        { runtime: adapter.id, conversationId, cwd, home: ctx.home, host: seat.host },
        ports.store.sessions.liveBoundTo(conversationFamily(adapter.id), conversationId),
      );
      if (!free.ok) return free;
      return {
        ok: true,
        argv: adapter.resumeArgv(ctx, conversationId),
        plan: { mode: 'resume', runtime: adapter.id, conversationId },
      };
    }
    const f = adapter.freshArgv(ctx);
    return {
      ok: true,
      argv: f.argv,
      plan: { mode: 'fresh', runtime: adapter.id, ...(f.conversationId ? { conversationId: f.conversationId } : {}) },
    };
  };

async function launchRow(
  ports: LaunchPorts,
  seat: SeatRow,
  opts: { fresh?: boolean },
): Promise<Result<{ launched: LaunchedSeat }>> {
  return launchSeatWith(ports, seat, resumeOrFresh(opts));
}

/**
 * Launches a seat with an argv of the caller's choosing (fork, restore) through the same checks
 * and the same create fence as every launch.
 */
export async function launchSeatWith(
  ports: LaunchPorts,
  seat: SeatRow,
  choose: ArgvChooser,
): Promise<Result<{ launched: LaunchedSeat }>> {
  const adapter = runtimeById(seat.runtime);
  if (!adapter)
    return fail(
      'RUNTIME_UNKNOWN',
      `seat ${seat.seat} names runtime "${seat.runtime}", which this Rigdesk does not know`,
    );
  // Made (or found again) before anything else: the seat's folder is inside it.
  const tree = await ensureSeatWorktree(ports, seat);
  if (!tree.ok) return tree;
  if (tree.created)
    ports.store.events.append('worktree.created', { rig: seat.rig, seat: seat.seat }, { ...seat.worktree });
  if (seat.host !== 'local') return launchRemote(ports, seat, adapter, choose);
  if (!ports.fs.existsSync(seat.cwd) || !ports.fs.statSync(seat.cwd).isDirectory()) {
    return fail('CWD_MISSING', `working folder of ${seat.seat} does not exist: ${seat.cwd}`, {
      hint: 'Create it, or fix cwd in the rig spec and run rigdesk up again.',
      evidence: { cwd: seat.cwd },
    });
  }
  const seatEnv = { ...scrubIdentity(ports.env), ...seat.env };
  const program = adapter.binary ?? seat.command ?? ports.env.SHELL ?? '/bin/sh';
  // The spec's command, when it names one, is what runs (a shell seat's program is nothing else).
  const binary = whichOnPath(seat.command || program, seatEnv.PATH, ports.fs);
  if (!binary) {
    return fail(
      'RUNTIME_NOT_INSTALLED',
      `${adapter.displayName} (${program}) is not on the PATH of seat ${seat.seat}`,
      {
        hint: adapter.installHint
          ? `Install it (${adapter.installHint}) or set PATH in the seat's env.`
          : `Install ${program}, or set the seat's command to a full path.`,
        evidence: { program, PATH: seatEnv.PATH ?? '' },
      },
    );
  }

  // Taken at the first check that needs it (docs/architecture.md invariant 1), then shared.
  const roster = launchRoster(ports);
  const earlier = await settleEarlier(ports, seat, roster);
  if (!earlier.ok) return earlier;

  const ctx = launchContext(ports, seat, binary, { env: seatEnv });
  const chosen = await choose({ ports, seat, adapter, ctx, roster });
  if (!chosen.ok) return chosen;
  // Activity hooks go only into a config the seat isolates for itself, never a person's default.
  const hookHome = seatHookHome(adapter, seat.env);
  if (hookHome) adapter.installHooks?.(hookHome, ports.layout.hooksDir, seat.seat, settingsIO(ports.fs));
  const prepared = adapter.prepareSeat?.(seatPrepInput(ports, seat, seatEnv), { write: true });
  if (prepared && !prepared.ok) return prepared;
  const { argv, plan } = chosen;
  const extraEnv =
    adapter.seatEnv?.({
      seatDir: join(ports.layout.home, 'seats', seat.seat),
      env: seat.env,
      ensureDir: (d) => ports.fs.mkdirSync(d, { recursive: true, mode: 0o700 }),
    }) ?? {};
  return createBehindFence(ports, seat, plan, wrapForPane(argv), roster, extraEnv);
}

/** What a runtime's own pre-launch step (and doctor) is given for a seat. */
export function seatPrepInput(
  ports: Pick<Ports, 'fs' | 'seatHome' | 'userHome'>,
  seat: SeatRow,
  env: Record<string, string | undefined>,
): SeatPrepInput {
  let cwd = seat.cwd;
  try {
    cwd = ports.fs.realpathSync(seat.cwd);
  } catch {
    /* a missing folder is launch's to report */
  }
  return {
    seat: seat.seat,
    seatEnv: seat.env,
    env,
    cwd,
    home: ports.seatHome(seat) ?? ports.userHome,
    userHome: ports.userHome,
    io: settingsIO(ports.fs),
  };
}
