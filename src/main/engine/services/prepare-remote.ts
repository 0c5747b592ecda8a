import { fail, type Failure } from '../../../shared/errors';
import type { Engine } from '../engine';
import { dirname } from 'node:path';
import { withHostFiles, type HostWrite } from '../hosts/host-files';
import { remoteHookOf } from '../hosts/hook-watch';
import type { SshHost } from '../hosts/transport';
import type { RuntimeAdapter, SeatPrepInput } from '../runtimes';
import { installClaudeHooks } from '../runtimes/hooks/claude';
import { installCodexNotify } from '../runtimes/hooks/codex';
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
 * (OpenCode's TMPDIR, in Rigdesk's folder for the seat under the host user's home). Reads go to
 * the host in rounds; the writes come back to be made there with the launch's other files.
 */
export async function prepareOnHost(
  engine: Engine,
  host: SshHost,
  seat: SeatRow,
  adapter: RuntimeAdapter,
  facts: { realCwd: string; home: string },
): Promise<Prepared> {
  const extraEnv: Record<string, string> = {};
  const step = (io: SettingsIO) => {
    const hook = remoteHookOf(seat);
    if (hook && adapter.id === 'claude-code')
      installClaudeHooks(seat.env.CLAUDE_CONFIG_DIR!, dirname(hook.file), seat.seat, io, hook.fifo);
    if (hook && adapter.id === 'codex')
      installCodexNotify(seat.env.CODEX_HOME!, dirname(hook.file), seat.seat, io, hook.fifo);
    const env = adapter.seatEnv?.({
      seatDir: `${facts.home}/.rigdesk/seats/${seat.seat}`,
      env: seat.env,
      ensureDir: (d) => io.ensureDir(d, 0o700),
    });
    Object.assign(extraEnv, env ?? {});
    return adapter.prepareSeat?.(prepInput(engine, seat, adapter, facts, io), { write: true });
  };
  const r = await withHostFiles(host.exec, step, new Map([[seat.cwd, facts.realCwd]]));
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
  engine: Engine,
  seat: SeatRow,
  adapter: RuntimeAdapter,
  facts: { realCwd: string; home: string },
  io: SettingsIO,
): SeatPrepInput {
  return {
    seat: seat.seat,
    seatEnv: seat.env,
    // The host's login gives HOME (and a PATH); the seat's spec env goes over it, as in its pane.
    env: { HOME: facts.home, ...seat.env },
    cwd: facts.realCwd,
    home: engine.seatHome(seat) ?? adapter.defaultHome?.(seat.env.HOME ?? facts.home) ?? facts.home,
    userHome: facts.home,
    io,
  };
}
