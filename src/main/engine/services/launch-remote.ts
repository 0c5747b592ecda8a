import type { LaunchedSeat } from '../../../shared/contract';
import { fail, type Result } from '../../../shared/errors';
import type { Engine } from '../engine';
import { hostUnreachable } from '../hosts/merge';
import type { RuntimeAdapter, LaunchContext } from '../runtimes';
import { wrapForPane } from '../runtimes/env';
import type { SeatRow } from '../store';
import type { SshHost } from '../hosts/transport';
import { createBehindFence, settleEarlier, type ArgvChooser } from './fence';

const LOCAL_ONLY = new Set(['opencode', 'gemini', 'qwen']);

/** Runtimes whose seats cannot run on another host yet (see launchRemote); restore refuses them up front. */
export function remoteUnsupported(runtime: string): boolean {
  return LOCAL_ONLY.has(runtime);
}

/**
 * Launch on another host: the same roster, custody guard and create fence as a local launch, with
 * the folder and the program checked on that host. A host that does not answer refuses (fail
 * closed): nothing is created, nothing is decided about its earlier sessions.
 */
export async function launchRemote(
  engine: Engine,
  seat: SeatRow,
  adapter: RuntimeAdapter,
  choose: ArgvChooser,
): Promise<Result<{ launched: LaunchedSeat }>> {
  const host = engine.hosts.get(seat.host);
  if (!host)
    return fail('HOST_NOT_FOUND', `seat ${seat.seat} runs on host "${seat.host}", which Rigdesk does not know`, {
      hint: 'Declare it under hosts: in the rig spec, or rigdesk hosts add.',
      evidence: { host: seat.host },
    });
  const unreachable = (why: string) =>
    fail('HOST_UNREACHABLE', `host ${seat.host} does not answer (${why}); ${seat.seat} was not launched`, {
      hint: `Rigdesk retries with back-off; check with rigdesk hosts check ${seat.host}.`,
      evidence: { host: seat.host, reason: why },
    });

  // These runtimes need a step on the seat's own files before launch (Gemini's session cleanup off,
  // Qwen's proxy setting) or custody evidence read from a local database (OpenCode): neither is done
  // over ssh yet, so a remote seat of theirs is refused rather than launched unguarded.
  if (LOCAL_ONLY.has(adapter.id))
    return fail(
      'HOST_UNSUPPORTED',
      `${adapter.displayName} seats cannot run on another host yet; ${seat.seat} was not launched`,
      {
        hint: 'Run this seat on this machine (no host:), or use Claude Code, Codex, Pi or a shell there.',
        evidence: { host: seat.host, runtime: adapter.id },
      },
    );
  const roster = await engine.roster();
  const down = hostUnreachable(roster, seat.host);
  if (down !== undefined) return unreachable(down);
  const tmux = engine.ownOn(seat.host);
  if (!roster.servers.some((s) => s.server === tmux.key))
    return fail('TMUX_FAILED', `could not list Rigdesk's tmux server on ${seat.host}`, {
      evidence: { problems: roster.problems.filter((p) => p.host === seat.host) },
    });

  const found = await programOnHost(host, seat, adapter);
  if (!found.ok)
    return found.code === 'HOST_UNREACHABLE' ? unreachable(String(found.evidence?.reason ?? found.message)) : found;
  const binary = found.binary;

  // The host's health and its server's listing were needed up front: this roster serves every check.
  const taken = async () => roster;
  const earlier = await settleEarlier(engine, seat, taken);
  if (!earlier.ok) return earlier;
  const ctx: LaunchContext = {
    binary,
    cwd: seat.cwd,
    args: seat.args,
    home: engine.seatHome(seat),
    newId: engine.deps.newId,
  };
  const chosen = await choose({ engine, seat, adapter, ctx, roster: taken });
  if (!chosen.ok) return chosen;
  return createBehindFence(engine, seat, chosen.plan, wrapForPane(chosen.argv), taken);
}

/** One round trip: the seat's folder exists on its host and its program resolves in the host's login PATH. */
export async function programOnHost(
  host: SshHost,
  seat: SeatRow,
  adapter: RuntimeAdapter,
): Promise<Result<{ binary: string }>> {
  const program = adapter.binary ?? seat.command ?? 'sh';
  const probe = await host.exec('sh', [
    '-c',
    '[ -d "$1" ] || { echo nocwd; exit 0; }; command -v "$2" || echo noprog',
    'rd',
    seat.cwd,
    seat.command && adapter.id !== 'shell' ? seat.command : program,
  ]);
  if (probe.spawnError)
    return fail('HOST_UNREACHABLE', `host ${seat.host} does not answer (${probe.spawnError})`, {
      evidence: { host: seat.host, reason: probe.spawnError },
    });
  const said = probe.stdout.trim().split('\n').pop() ?? '';
  if (said === 'nocwd')
    return fail('CWD_MISSING', `working folder of ${seat.seat} does not exist on ${seat.host}: ${seat.cwd}`, {
      evidence: { host: seat.host, cwd: seat.cwd },
    });
  if (said === 'noprog' || said === '')
    return fail('RUNTIME_NOT_INSTALLED', `${adapter.displayName} (${program}) is not on the PATH of ${seat.host}`, {
      evidence: { host: seat.host, program },
    });
  return { ok: true, binary: said };
}
