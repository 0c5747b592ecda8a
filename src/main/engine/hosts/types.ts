/**
 * A host is a machine seats run on: this one (`local`) or one reached over OpenSSH. The engine
 * reaches every host through the same two things, a way to run a program there and a way to read
 * its process table, so a remote host is a transport, not a second engine.
 */

export const LOCAL_HOST = 'local';

export interface SshTarget {
  host: string;
  user?: string;
  port?: number;
  identityFile?: string;
  /** Known-hosts file for this host; tests point it at their own file, never the person's. */
  knownHostsFile?: string;
  /** `yes` (default), `accept-new` or `no`, passed to StrictHostKeyChecking. */
  strictHostKeyChecking?: 'yes' | 'accept-new' | 'no';
  /** ssh client config file; `/dev/null` keeps the person's ~/.ssh/config out (tests). */
  configFile?: string;
}

export interface HostSpec {
  name: string;
  /** Absent for the local machine. */
  ssh?: SshTarget;
  /** The tmux server the engine owns on that host (`-L name`); default `rigdesk`. */
  tmuxSocket?: string;
}

export type HostHealth =
  | { host: string; state: 'local' }
  | { host: string; state: 'reachable'; checkedAt: number; rttMs: number }
  | { host: string; state: 'unreachable'; checkedAt: number; reason: string; retryAt: number; failures: number };

export function isLocal(host: string | null | undefined): boolean {
  return host === undefined || host === null || host === '' || host === LOCAL_HOST;
}
