/**
 * tmux -F formats and their parsers. Fields are separated by U+001F. tmux escapes it in session
 * names and refuses it in pane titles, but prints pane_current_path raw, so that field comes last
 * and keeps the rest of the line.
 */
export const SEP = '\x1f';

export const PANE_FIELDS = [
  'pid', // server pid
  'session_id',
  'session_created',
  'pane_id',
  'pane_pid',
  'pane_dead',
  'pane_active',
  'window_index',
  'pane_index',
  'pane_width',
  'pane_height',
  'pane_current_command',
  '@rigdesk_seat',
  '@rigdesk_attempt',
  // Whether the pane's output is piped somewhere: the activity watch pipes only a pane with none.
  'pane_pipe',
  'session_name',
  'pane_title',
  // Last on purpose: tmux 3.3a prints pane_current_path raw (a U+001F in a folder name is not
  // escaped), so it takes whatever is left of the line.
  'pane_current_path',
] as const;

export const PANE_FORMAT = PANE_FIELDS.map((f) => `#{${f}}`).join(SEP);

export interface PaneRow {
  serverPid: number;
  sessionId: string;
  sessionCreated: number;
  paneId: string;
  panePid: number;
  paneDead: boolean;
  paneActive: boolean;
  windowIndex: number;
  paneIndex: number;
  width: number;
  height: number;
  currentCommand: string;
  seatTag: string;
  attemptTag: string;
  pipe: boolean;
  sessionName: string;
  currentPath: string;
  title: string;
}

/** Parses `list-panes -a -F PANE_FORMAT` output; malformed lines are dropped and counted. */
export function parsePaneRows(stdout: string): { rows: PaneRow[]; malformed: number } {
  const rows: PaneRow[] = [];
  let malformed = 0;
  for (const line of stdout.split('\n')) {
    if (line === '') continue;
    const parts = line.split(SEP);
    if (parts.length < PANE_FIELDS.length) {
      malformed++;
      continue;
    }
    const f = [...parts.slice(0, PANE_FIELDS.length - 1), parts.slice(PANE_FIELDS.length - 1).join(SEP)];
    const num = (s: string | undefined) => (s !== undefined && /^-?\d+$/.test(s) ? Number(s) : NaN);
    const row: PaneRow = {
      serverPid: num(f[0]),
      sessionId: f[1]!,
      sessionCreated: num(f[2]),
      paneId: f[3]!,
      panePid: num(f[4]),
      paneDead: f[5] === '1',
      paneActive: f[6] === '1',
      windowIndex: num(f[7]),
      paneIndex: num(f[8]),
      width: num(f[9]),
      height: num(f[10]),
      currentCommand: f[11]!,
      seatTag: f[12]!,
      attemptTag: f[13]!,
      pipe: f[14] === '1',
      sessionName: f[15]!,
      title: f[16]!,
      currentPath: f[17]!,
    };
    if (
      !/^\$\d+$/.test(row.sessionId) ||
      !/^%\d+$/.test(row.paneId) ||
      Number.isNaN(row.serverPid) ||
      Number.isNaN(row.panePid) ||
      Number.isNaN(row.sessionCreated)
    ) {
      malformed++;
      continue;
    }
    rows.push(row);
  }
  return { rows, malformed };
}

/** How tmux said "this server is not there": a definite absence, not an unknown. */
export function serverAbsent(stderr: string): boolean {
  return /no server running on|error connecting to .*\((No such file or directory|Connection refused)\)/.test(stderr);
}

/**
 * tmux resolves a command's current session before its -t target, and says "no current target"
 * only when the client has no session and the server has none at all to fall back on: seen on the
 * held client right after a kill of the server's last session. So no session of it exists.
 */
export function noSessionLeft(stderr: string): boolean {
  return /no current target/.test(stderr);
}

export function sessionAbsent(stderr: string): boolean {
  return /can't find session|session not found|can't find pane|can't find window/.test(stderr);
}
