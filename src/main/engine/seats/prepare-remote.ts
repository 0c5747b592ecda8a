import { fail, type Failure } from '../../../shared/errors';
import type { Ports } from '../ports';
import { dirname } from 'node:path';
import { withHostFiles, type HostWrite } from '../hosts/host-files';
import { remoteHookOf } from '../hosts/hook-watch';
import type { SshHost } from '../hosts/transport';
import { seatHookHome, type RuntimeAdapter, type SeatPrepInput } from '../runtimes';
import type { SettingsIO } from '../runtimes/json-settings';
import type { SeatRow } from '../store';

export type Prepared =
  | { ok: true; writes: HostWrite[]; extraEnv: Record<string, string> }
  | { ok: false; unreachable: true; reason: string }
  | { ok: false; unreachable: false; failure: Failure };

/**
 * The steps a local launch takes on a seat's own files, taken on its host: the activity hooks in
 * the seat's own config home there (Claude's hooks, Codex's notify), writing their events to a
 * folder in that home which the host's evidence rounds read; the runtime's own step (Gemini's
 * cleanup off, Qwen's proxy) against the host's settings files; the variables it adds to the pane
 * (OpenCode's TMPDIR, in Rigdesk's folder for the seat under the host user's home); omp's first-run
 * setup in its agent dir there and omo's plugin from the host's own package, in the seat's config
 * there. Reads go to the host in rounds; the writes come back to be made there with the launch's
 * other files.
 */
export async function prepareOnHost(
  ports: Pick<Ports, 'seatHome'>,
  host: SshHost,
  seat: SeatRow,
  adapter: RuntimeAdapter,
  facts: HostFacts,
): Promise<Prepared> {
  const extraEnv: Record<string, string> = {};
  const step = (io: SettingsIO) => {
    const hook = remoteHookOf(seat);
    const hookHome = seatHookHome(adapter, seat.env);
    if (hook && hookHome) adapter.installHooks?.(hookHome, dirname(hook.file), seat.seat, io, hook.fifo);
    const env = adapter.seatEnv?.({
      seatDir: `${facts.home}/.rigdesk/seats/${seat.seat}`,
      env: seat.env,
      ensureDir: (d) => io.ensureDir(d, 0o700),
    });
    Object.assign(extraEnv, env ?? {});
    return adapter.prepareSeat?.(prepInput(ports, seat, adapter, facts, io), { write: true });
  };
  const r = await withHostFiles(host.exec, step, facts.real);
  if (!r.ok)
    return r.unreachable
      ? { ok: false, unreachable: true, reason: r.reason }
      : {
          ok: false,
          unreachable: false,
          failure: fail('EVIDENCE_UNREADABLE', `${seat.seat}'s config on ${seat.host} could not be read: ${r.reason}`, {
            evidence: { host: seat.host, reason: r.reason },
          }),
        };
  if (r.value && !r.value.ok) return { ok: false, unreachable: false, failure: r.value };
  return { ok: true, writes: r.writes, extraEnv };
}

/** What a runtime's own step sees for a seat on a host: the host's folder, home and files. */
function prepInput(
  ports: Pick<Ports, 'seatHome'>,
  seat: SeatRow,
  adapter: RuntimeAdapter,
  facts: HostFacts,
  io: SettingsIO,
): SeatPrepInput {
  return {
    seat: seat.seat,
    seatEnv: seat.env,
    // The host's login gives HOME (and a PATH); the seat's spec env goes over it, as in its pane.
    env: hostSeatEnv(seat, facts),
    cwd: facts.realCwd,
    home: ports.seatHome(seat) ?? adapter.defaultHome?.(seat.env.HOME ?? facts.home) ?? facts.home,
    userHome: facts.home,
    io,
    // The programs it needs as that host's PATH found them (omo's package is the host's own).
    programPath: (program) => (Object.hasOwn(facts.needs, program) ? facts.needs[program] : undefined),
  };
}

export interface HostFacts {
  binary: string;
  /** The seat's folder as the host resolves it (`pwd -P` there). */
  realCwd: string;
  /** The host user's home there. */
  home: string;
  /** TMPDIR as a login on the host has it, when it has one. */
  tmpdir?: string;
  /**
   * Real paths on the host of the seat's folder and of the HOME and temp folders its pane will see
   * (omp names a session folder after them), for the launch's own files.
   */
  real: ReadonlyMap<string, string>;
  /** Each program the runtime needs besides its own (omo's CLI), where the host's PATH finds it, links resolved. */
  needs: Readonly<Record<string, string>>;
}

/** What the seat's pane on its host sees: the host login's HOME (and TMPDIR), the seat's spec env over them. */
export function hostSeatEnv(
  seat: Pick<SeatRow, 'env'>,
  facts: Pick<HostFacts, 'home' | 'tmpdir'>,
): Record<string, string> {
  return { HOME: facts.home, ...(facts.tmpdir ? { TMPDIR: facts.tmpdir } : {}), ...seat.env };
}
