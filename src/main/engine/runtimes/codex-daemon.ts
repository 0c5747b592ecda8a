import { join } from 'node:path';

/**
 * Codex 0.171 starts a background app-server daemon per CODEX_HOME unless that home's config.toml
 * says `daemon_auto_start = false` under `[features]` (or `features.daemon_auto_start = false`).
 * The daemon, not the TUI in the pane, then runs turns and holds the thread's writer lock, and it
 * outlives the TUI.
 */
export function codexDaemonAutoStart(configToml: string | undefined): boolean {
  if (configToml === undefined) return true;
  let section = '';
  for (const raw of configToml.split('\n')) {
    const line = raw.replace(/#.*$/, '').trim();
    const header = /^\[\s*([^\]]+?)\s*\]$/.exec(line);
    if (header) {
      section = header[1]!;
      continue;
    }
    const key = /^([A-Za-z0-9_.]+)\s*=\s*(true|false)\b/.exec(line);
    if (!key) continue;
    const name = section ? `${section}.${key[1]}` : key[1];
    if (name === 'features.daemon_auto_start') return key[2] === 'true';
  }
  return true;
}

export const codexConfigPath = (home: string): string => join(home, 'config.toml');
