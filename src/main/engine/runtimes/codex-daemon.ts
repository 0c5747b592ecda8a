import { join } from 'node:path';
import { parse } from 'smol-toml';
import type { DoctorCheck } from '../../../shared/contract';

/**
 * Codex 0.171 starts a background app-server daemon per CODEX_HOME unless that home's config.toml
 * says `daemon_auto_start = false` under `[features]`. The daemon, not the TUI in the pane, then
 * runs turns and holds the thread's writer lock, and it outlives the TUI. A config that does not
 * parse leaves Codex's default (on); Codex itself would refuse to start on it.
 */
export function codexDaemonAutoStart(configToml: string | undefined): boolean {
  if (configToml === undefined) return true;
  try {
    const features = parse(configToml).features;
    return !(
      typeof features === 'object' &&
      features !== null &&
      'daemon_auto_start' in features &&
      features.daemon_auto_start === false
    );
  } catch {
    return true;
  }
}

export const codexConfigPath = (home: string): string => join(home, 'config.toml');

/**
 * Doctor's word on a Codex home this machine's seats use: its background daemon on is reported,
 * not failed. The daemon outlives the seat's TUI and holds its thread; the hint says what the
 * person can set instead.
 */
export function codexDaemonCheck(
  home: string,
  seats: readonly string[],
  readText: (path: string) => string | undefined,
): DoctorCheck {
  const on = codexDaemonAutoStart(readText(codexConfigPath(home)));
  return {
    check: `codex daemon (${seats.join(', ')})`,
    ok: true,
    detail: on
      ? `on in ${home}: Codex's background daemon runs the turns and outlives the seat's TUI`
      : `off in ${home} (daemon_auto_start = false)`,
    ...(on
      ? {
          hint: `To have each seat's TUI own its thread, add daemon_auto_start = false under [features] in ${codexConfigPath(home)}.`,
        }
      : {}),
  };
}
