import type { LaunchedSeat } from '../../../shared/contract';
import { fail, type Result } from '../../../shared/errors';
import type { Engine } from '../engine';
import { writeOnHost, type HostWrite } from '../hosts/host-files';
import { remoteUnsupported } from '../hosts/gate';
import { hostUnreachable } from '../hosts/merge';
import type { SshHost } from '../hosts/transport';
import type { LaunchContext, LaunchFiles, RuntimeAdapter } from '../runtimes';
import { wrapForPane } from '../runtimes/env';
import type { SeatRow } from '../store';
import { createBehindFence, settleEarlier, type ArgvChooser } from './fence';
import { prepareOnHost } from './prepare-remote';

/**
 * Launch on another host: the same roster, custody guard, pre-launch steps and create fence as a
 * local launch, with the folder and the program checked on that host and the seat's own files
 * (its runtime's settings, its activity hooks, a session header) read and written there. A host
 * that does not answer refuses (fail closed): nothing is created, nothing is decided about its
 * earlier sessions.
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

  if (remoteUnsupported(adapter.id))
    return fail(
      'HOST_UNSUPPORTED',
      `${adapter.displayName} seats cannot run on another host yet; ${seat.seat} was not launched`,
      {
        hint: 'Run this seat on this machine (no host:); every other runtime runs on hosts.',
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

  // The host's health and its server's listing were needed up front: this roster serves every check.
  const taken = async () => roster;
  const earlier = await settleEarlier(engine, seat, taken);
  if (!earlier.ok) return earlier;
  const launchFiles = recordingFiles(new Map([[seat.cwd, found.realCwd]]));
  const ctx: LaunchContext = {
    binary: found.binary,
    cwd: seat.cwd,
    args: seat.args,
    home: engine.seatHome(seat),
    newId: engine.deps.newId,
    files: launchFiles,
  };
  const chosen = await choose({ engine, seat, adapter, ctx, roster: taken });
  if (!chosen.ok) return chosen;
  const prepared = await prepareOnHost(engine, host, seat, adapter, found);
  if (!prepared.ok) return prepared.unreachable ? unreachable(prepared.reason) : prepared.failure;
  const wrote = await writeOnHost(host.exec, [...launchFiles.writes, ...prepared.writes]);
  if (!wrote.ok)
    return wrote.unreachable
      ? unreachable(wrote.reason)
      : fail('RUNTIME_CONFIG_UNSAFE', `${seat.seat}'s files on ${seat.host} could not be made: ${wrote.reason}`, {
          hint: `Check that the host's user may write the seat's config home and folder on ${seat.host}.`,
          evidence: { host: seat.host, reason: wrote.reason },
        });
  return createBehindFence(engine, seat, chosen.plan, wrapForPane(chosen.argv), taken, prepared.extraEnv);
}

/** A launch's own files, kept to be written on the host with the rest (Pi's session header). */
function recordingFiles(real: ReadonlyMap<string, string>): LaunchFiles & { writes: HostWrite[] } {
  const writes: HostWrite[] = [];
  return {
    writes,
    realPath: (p) => real.get(p) ?? p,
    createNew: (path, text) => void writes.push({ kind: 'new', path, text }),
  };
}

export interface HostFacts {
  binary: string;
  /** The seat's folder as the host resolves it (`pwd -P` there). */
  realCwd: string;
  /** The host user's home there. */
  home: string;
}

/**
 * One round trip: the seat's folder exists on its host (and its real path there), its program
 * resolves in the host's login PATH, and the host user's home.
 */
export async function programOnHost(host: SshHost, seat: SeatRow, adapter: RuntimeAdapter): Promise<Result<HostFacts>> {
  const program = adapter.binary ?? seat.command ?? 'sh';
  const probe = await host.exec('sh', [
    '-c',
    'cd "$1" 2>/dev/null || { echo nocwd; exit 0; }; pwd -P; printf "%s\\n" "$HOME"; command -v "$2" || echo noprog',
    'rd',
    seat.cwd,
    seat.command && adapter.id !== 'shell' ? seat.command : program,
  ]);
  if (probe.spawnError)
    return fail('HOST_UNREACHABLE', `host ${seat.host} does not answer (${probe.spawnError})`, {
      evidence: { host: seat.host, reason: probe.spawnError },
    });
  const lines = probe.stdout.trim().split('\n');
  const said = lines.at(-1) ?? '';
  if (said === 'nocwd')
    return fail('CWD_MISSING', `working folder of ${seat.seat} does not exist on ${seat.host}: ${seat.cwd}`, {
      evidence: { host: seat.host, cwd: seat.cwd },
    });
  if (said === 'noprog' || said === '' || lines.length < 3)
    return fail('RUNTIME_NOT_INSTALLED', `${adapter.displayName} (${program}) is not on the PATH of ${seat.host}`, {
      evidence: { host: seat.host, program },
    });
  return { ok: true, binary: said, realCwd: lines[0]!, home: lines[1]! };
}
