import type { ChildSet } from './children';
import type { Clock, Exec, Fs } from './deps';
import type { FaultHooks } from './faults';
import type { GitPort } from './git';
import type { HomeLayout } from './home';
import type { HostSet } from './hosts/roster';
import type { ProcInfo, ProcReader } from './proc/types';
import type { Roster } from './roster/types';
import type { EvidenceIO } from './runtimes/types';
import type { SeatRow, Store } from './store';
import type { TmuxClient } from './tmux/client';

/** Called before a pane is respawned in place, with a release for after (see Ports.beforeRespawn). */
export type RespawnGuard = (server: string, paneId: string) => Promise<() => void>;

/** What a seat's config home is read from: its runtime and env, and its host. */
export type SeatHomeOf = Pick<SeatRow, 'runtime' | 'env'> & { host?: string };

/**
 * What the engine's lower and middle folders take from the live system, as values: each function
 * there names the few it uses (`Pick<Ports, 'store' | 'roster'>`), never the Engine. The Engine
 * (engine.ts, the composition root) builds them once; a test hands a function its own (a roster
 * that fails, one that counts) instead of patching the engine.
 */
export interface Ports {
  /** The store's repositories and the event log. */
  readonly store: Store;
  readonly clock: Clock;
  /** The file system calls the engine makes on this machine. */
  readonly fs: Fs;
  /** This machine's runtime evidence files (live-state files, transcripts, locks). */
  readonly io: EvidenceIO;
  /** The environment seats start from (identity markers are scrubbed later). */
  readonly env: NodeJS.ProcessEnv;
  readonly userHome: string;
  readonly selfPid: number;
  readonly layout: HomeLayout;
  readonly newId: () => string;
  readonly faults: FaultHooks;
  /** Every process the engine starts, tracked until it exits and ended with the engine (children.ts). */
  readonly children: ChildSet;
  readonly exec: Exec;
  /** This machine's process table. */
  readonly proc: ProcReader;
  /** A fresh roster: what every custody decision reads (docs/architecture.md invariant 1). */
  readonly roster: () => Promise<Roster>;
  /** A client for a tmux server by its key (here, or on a host over its connection). */
  readonly client: (server: string) => TmuxClient;
  /** Rigdesk's own tmux server on a host (`local`: this machine's): where that host's seats are created. */
  readonly ownOn: (host: string) => TmuxClient;
  /** The key of Rigdesk's own tmux server on this machine. */
  readonly ownKey: string;
  /** The process table of the host a server runs on, as of the last roster (remote) or now (local). */
  readonly procOf: (server: string) => ProcReader;
  /** One process read fresh on the host a server runs on; 'unknown' when that host did not answer. */
  readonly procNow: (server: string, pid: number) => Promise<ProcInfo | undefined | 'unknown'>;
  /** git on a host (`local`: this machine), argv only: worktrees, changes, the merge. */
  readonly gitOn: (host: string) => GitPort;
  /** The SSH hosts Rigdesk knows, and what their last scans read. */
  readonly hosts: HostSet;
  /** The config home a seat's runtime uses: its spec env, else the default under the user's home. */
  readonly seatHome: (seat: SeatHomeOf) => string | undefined;
  /**
   * Before a pane is respawned in place (restart): every guard runs, and the release runs after.
   * tmux 3.3a's server crashes, every session with it, when a pane is respawned while a
   * control-mode client is behind on its output (tmux #5499); the activity monitor takes its own
   * off such a pane here.
   */
  readonly beforeRespawn: (server: string, paneId: string) => Promise<() => void>;
  readonly onBeforeRespawn: (guard: RespawnGuard) => () => void;
}
