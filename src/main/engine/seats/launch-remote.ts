import type { LaunchedSeat } from '../../../shared/contract';
import { fail, type Result } from '../../../shared/errors';
import { writeOnHost, type HostWrite } from '../hosts/host-files';
import { hostUnreachable } from '../hosts/merge';
import type { SshHost } from '../hosts/transport';
import type { LaunchFiles, RuntimeAdapter } from '../runtimes';
import { wrapForPane } from '../runtimes/env';
import type { SeatRow } from '../store';
import { createBehindFence, settleEarlier, type ArgvChooser } from './fence';
import { hostSeatEnv, prepareOnHost, type HostFacts } from './prepare-remote';
import { launchContext } from './launch-context';
import type { LaunchPorts } from './ports';

/**
 * Launch on another host: the same roster, custody guard, pre-launch steps and create fence as a
 * local launch, with the folder and the program checked on that host and the seat's own files
 * (its runtime's settings, its activity hooks, a session header) read and written there. A host
 * that does not answer refuses (fail closed): nothing is created, nothing is decided about its
 * earlier sessions.
 */
export async function launchRemote(
  ports: LaunchPorts,
  seat: SeatRow,
  adapter: RuntimeAdapter,
  choose: ArgvChooser,
): Promise<Result<{ launched: LaunchedSeat }>> {
  const host = ports.hosts.get(seat.host);
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

  const roster = await ports.roster();
  const down = hostUnreachable(roster, seat.host);
  if (down !== undefined) return unreachable(down);
  const tmux = ports.ownOn(seat.host);
  if (!roster.servers.some((s) => s.server === tmux.key))
    return fail('TMUX_FAILED', `could not list Rigdesk's tmux server on ${seat.host}`, {
      evidence: { problems: roster.problems.filter((p) => p.host === seat.host) },
    });

  const found = await programOnHost(host, seat, adapter);
  if (!found.ok)
    return found.code === 'HOST_UNREACHABLE' ? unreachable(String(found.evidence?.reason ?? found.message)) : found;

  // The host's health and its server's listing were needed up front: this roster serves every check.
  const taken = async () => roster;
  const earlier = await settleEarlier(ports, seat, taken);
  if (!earlier.ok) return earlier;
  const launchFiles = recordingFiles(found.real);
  const ctx = launchContext(ports, seat, found.binary, { env: hostSeatEnv(seat, found), files: launchFiles });
  const chosen = await choose({ ports, seat, adapter, ctx, roster: taken });
  if (!chosen.ok) return chosen;
  const prepared = await prepareOnHost(ports, host, seat, adapter, found);
  if (!prepared.ok) return prepared.unreachable ? unreachable(prepared.reason) : prepared.failure;
  const wrote = await writeOnHost(host.exec, [...launchFiles.writes, ...prepared.writes]);
  if (!wrote.ok)
    return wrote.unreachable
      ? unreachable(wrote.reason)
      : fail('RUNTIME_CONFIG_UNSAFE', `${seat.seat}'s files on ${seat.host} could not be made: ${wrote.reason}`, {
          hint: `Check that the host's user may write the seat's config home and folder on ${seat.host}.`,
          evidence: { host: seat.host, reason: wrote.reason },
        });
  return createBehindFence(ports, seat, chosen.plan, wrapForPane(chosen.argv), taken, prepared.extraEnv);
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

/**
 * One round trip: the seat's folder exists on its host (and its real path there), its program
 * and the runtime's other programs resolve in the host's login PATH, the host user's home and
 * TMPDIR, and the real paths there of the folders the seat's env names as its HOME and temp root.
 */
const HOST_FACTS_SCRIPT = [
  'cd "$1" 2>/dev/null || { echo nocwd; exit 0; }',
  'printf "cwd %s\\n" "$(pwd -P)"; printf "home %s\\n" "$HOME"; printf "tmpdir %s\\n" "${TMPDIR-}"',
  'prog=$2; n=$3; shift 3',
  'while [ "$n" -gt 0 ]; do printf "need %s\\t%s\\n" "$1" "$(p=$(command -v "$1") && readlink -f -- "$p")"; shift; n=$((n-1)); done',
  'for p in "$HOME" ${TMPDIR:+"$TMPDIR"} "$@"; do printf "real %s\\t%s\\n" "$p" "$(cd "$p" 2>/dev/null && pwd -P)"; done',
  'command -v "$prog" || echo noprog',
].join('\n');

/** The `sh` argv of HOST_FACTS_SCRIPT for a seat: its folder, program, the runtime's needs, the folders to resolve. */
export function hostFactsArgs(seat: Pick<SeatRow, 'cwd' | 'command' | 'env'>, adapter: RuntimeAdapter): string[] {
  const program = adapter.binary ?? seat.command ?? 'sh';
  const needs = adapter.needs ?? [];
  const folders = [seat.env.HOME, seat.env.TMPDIR, seat.env.TMP, seat.env.TEMP, '/tmp'].filter(
    (p): p is string => typeof p === 'string' && p.startsWith('/'),
  );
  return ['-c', HOST_FACTS_SCRIPT, 'rd', seat.cwd, seat.command || program, String(needs.length), ...needs, ...folders];
}

export async function programOnHost(host: SshHost, seat: SeatRow, adapter: RuntimeAdapter): Promise<Result<HostFacts>> {
  const program = adapter.binary ?? seat.command ?? 'sh';
  const probe = await host.exec('sh', hostFactsArgs(seat, adapter));
  if (probe.spawnError)
    return fail('HOST_UNREACHABLE', `host ${seat.host} does not answer (${probe.spawnError})`, {
      evidence: { host: seat.host, reason: probe.spawnError },
    });
  const facts = parseHostFacts(probe.stdout, seat.cwd);
  if (facts === 'nocwd')
    return fail('CWD_MISSING', `working folder of ${seat.seat} does not exist on ${seat.host}: ${seat.cwd}`, {
      evidence: { host: seat.host, cwd: seat.cwd },
    });
  if (facts === 'noprog')
    return fail('RUNTIME_NOT_INSTALLED', `${adapter.displayName} (${program}) is not on the PATH of ${seat.host}`, {
      evidence: { host: seat.host, program },
    });
  return { ok: true, ...facts };
}

/** Reads HOST_FACTS_SCRIPT's answer; a cut-short answer (no program line) is "no program". */
export function parseHostFacts(stdout: string, cwd: string): HostFacts | 'nocwd' | 'noprog' {
  const lines = stdout.split('\n').filter((l) => l !== '');
  const said = lines.at(-1) ?? '';
  if (said === 'nocwd') return 'nocwd';
  const tagged = (tag: string) => lines.filter((l) => l.startsWith(`${tag} `)).map((l) => l.slice(tag.length + 1));
  const realCwd = tagged('cwd')[0];
  const home = tagged('home')[0];
  if (said === 'noprog' || /^(?:cwd|home|tmpdir|need|real) /.test(said) || !realCwd || home === undefined)
    return 'noprog';
  const pairs = (tag: string) =>
    tagged(tag).flatMap((l) => {
      const tab = l.indexOf('\t');
      const [k, v] = [l.slice(0, tab), l.slice(tab + 1)];
      return tab > 0 && v ? [[k, v] as const] : [];
    });
  const tmpdir = tagged('tmpdir')[0];
  return {
    binary: said,
    realCwd,
    home,
    ...(tmpdir ? { tmpdir } : {}),
    real: new Map([...pairs('real'), [cwd, realCwd]]),
    needs: Object.fromEntries(pairs('need')),
  };
}
