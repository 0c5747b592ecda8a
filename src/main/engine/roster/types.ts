import type { HostHealth } from '../../../shared/contract/hosts';
import type { ConversationClaim, ServiceRole } from '../runtimes/types';

export interface RosterAgent {
  runtime: string;
  pid: number;
  startTime: string;
  argv: string[];
  cwd?: string;
  /** The runtime's config home this process uses (from its environment, or the default under its HOME). */
  home?: string;
  /** The conversation it writes, when evidence says; undefined is "unknown", never "none". */
  conversationId?: string;
  conversationSource?: ConversationClaim['source'];
  /** Where it runs: a pane on some tmux server, or nowhere (headless). */
  pane?: { server: string; paneId: string; sessionId?: string; sessionName?: string };
  /** The seat Rigdesk launched it for, from its environment (RIGDESK_SEAT). */
  seatTag?: string;
  /** The host it runs on; absent for this machine. Pids are only unique per host. */
  host?: string;
  /**
   * A runtime's background service (Codex's daemon): an agent of its own even while the TUI that
   * started it lives, since it serves the whole `home`; it sits in no pane.
   */
  service?: ServiceRole;
}

export interface RosterPane {
  server: string;
  serverPid: number;
  sessionId: string;
  sessionName: string;
  sessionCreated: number;
  paneId: string;
  panePid: number;
  panePidStart?: string;
  paneDead: boolean;
  seatTag: string;
  attemptTag: string;
  /** The pane's output is piped somewhere (`pane_pipe`). */
  pipe?: boolean;
  currentCommand: string;
  currentPath: string;
  title: string;
  /** The agent process in this pane's lineage, if any. */
  agent?: RosterAgent;
  /**
   * The pane's process is Rigdesk's seat wrapper (`rigdesk-seat` in its argv), as the roster's
   * process table read it; once the agent ends, the wrapper becomes a shell.
   */
  wrapped?: boolean;
  /**
   * tmux has made the pane but its process has not yet become the pane's program (it is still the
   * server's fork, or not in the process table yet): a launch's first moment, never an exit.
   */
  unborn?: boolean;
  /** Processes under the pane, shallow first (pid, comm). */
  lineage: { pid: number; comm: string; startTime: string }[];
  /** The foreground process (the shell itself when nothing runs on top of it). */
  foreground?: { pid: number; comm: string };
}

/** A piece of evidence that could not be read; custody fails closed on it. */
export interface RosterProblem {
  probe: string;
  runtime?: string;
  home?: string;
  server?: string;
  /** The host the probe ran on; absent for this machine. */
  host?: string;
  /** Probe `host`: the host did not answer at all (ssh failed), not just one read. */
  unreachable?: boolean;
  error: string;
}

export interface Roster {
  takenAt: number;
  servers: { server: string; running: boolean }[];
  panes: RosterPane[];
  agents: RosterAgent[];
  /** A conversation is (host, runtime, id): claims say their host; absent is this machine. */
  claims: (ConversationClaim & { host?: string })[];
  problems: RosterProblem[];
  /** Health of every remote host this roster tried to read. */
  hosts?: HostHealth[];
}
