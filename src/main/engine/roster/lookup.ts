import type { Roster, RosterPane } from './types';

/** A live row's identity, as the store keeps it. */
interface PaneIdentity {
  server: string;
  paneId: string;
  sessionId: string;
  serverPid: number;
  sessionCreated: number;
}

/** The live row's pane as the roster sees it, only if its immutable identity still matches. */
export function paneOf(roster: Roster, row: PaneIdentity): RosterPane | undefined {
  return roster.panes.find(
    (p) =>
      p.server === row.server &&
      p.paneId === row.paneId &&
      p.sessionId === row.sessionId &&
      p.serverPid === row.serverPid &&
      p.sessionCreated === row.sessionCreated,
  );
}

/** Whether a tmux server runs, as the roster listed it; undefined when it could not be listed. */
export function serverRunning(roster: Roster, server: string): boolean | undefined {
  return roster.servers.find((s) => s.server === server)?.running;
}
