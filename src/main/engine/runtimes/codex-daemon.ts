import { join } from 'node:path';
import { parse } from 'smol-toml';

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
