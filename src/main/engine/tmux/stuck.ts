import type { Exec, Fs } from '../deps';
import { type ReadFs, readRegularText } from '../read-file';
import { tmuxEnv } from './client';

/**
 * A tmux server that accepts and never answers (stopped, or wedged exiting), or refuses every
 * client ("server exited unexpectedly"), locks a person out of every seat on its socket: each
 * command waits or fails and nothing says which process to end. This probe tells such a server
 * from a healthy or an absent one within PROBE_MS, and names the process that listens on the
 * socket, proven by the socket's inode among that process's open files, so `doctor --fix` can end
 * exactly it and never another process.
 */
export const PROBE_MS = 2_000;

type ProcFs = ReadFs & Pick<Fs, 'readdirSync' | 'readlinkSync'>;

/** /proc/net/unix's bound: a machine with this many sockets is named by no probe (16 MiB). */
const UNIX_TABLE_MAX_BYTES = 16 * 1024 * 1024;

export type ServerProbe = { state: 'answers' } | { state: 'absent' } | { state: 'stuck'; why: string; pids: number[] };

/** One `list-sessions` with a short bound, on a separate client (never the engine's held one). */
export async function probeServer(
  exec: Exec,
  socketPath: string,
  fs: ProcFs,
  env: NodeJS.ProcessEnv,
): Promise<ServerProbe> {
  const r = await exec('tmux', ['-S', socketPath, 'list-sessions', '-F', '#{session_id}'], {
    timeoutMs: PROBE_MS,
    env: tmuxEnv(env),
  });
  if (r.code === 0) return { state: 'answers' };
  const err = r.stderr.trim();
  const pids = listeners(socketPath, fs);
  if (!r.timedOut && (pids.length === 0 || /no server running|error connecting/.test(err))) return { state: 'absent' };
  return {
    state: 'stuck',
    why: r.timedOut
      ? `accepts clients but did not answer within ${PROBE_MS} ms`
      : `refuses clients (${err || `exit ${r.code}`})`,
    pids,
  };
}

/**
 * The pids holding a Unix socket bound to `socketPath`: the inodes /proc/net/unix lists for that
 * path, found among each process's open files. Only a process holding the listening socket (or
 * one accepted from it) matches; a client's end of the socket has no path.
 */
export function listeners(socketPath: string, fs: ProcFs): number[] {
  const inodes = socketInodes(readOr(fs, '/proc/net/unix'), socketPath);
  if (inodes.size === 0) return [];
  const pids: number[] = [];
  for (const name of dirOr(fs, '/proc')) {
    if (!/^\d+$/.test(name)) continue;
    for (const fd of dirOr(fs, `/proc/${name}/fd`)) {
      const m = /^socket:\[(\d+)\]$/.exec(linkOr(fs, `/proc/${name}/fd/${fd}`));
      if (m && inodes.has(m[1]!)) {
        pids.push(Number(name));
        break;
      }
    }
  }
  return pids;
}

/** Inodes of the sockets bound to `path`, from /proc/net/unix (its last field is the path). */
export function socketInodes(table: string, path: string): Set<string> {
  const out = new Set<string>();
  for (const line of table.split('\n').slice(1)) {
    const f = line.trim().split(/\s+/);
    if (f.length >= 8 && f.slice(7).join(' ') === path) out.add(f[6]!);
  }
  return out;
}

function readOr(fs: ReadFs, p: string): string {
  try {
    return readRegularText(p, UNIX_TABLE_MAX_BYTES, fs);
  } catch {
    return '';
  }
}

function dirOr(fs: Pick<Fs, 'readdirSync'>, p: string): string[] {
  try {
    return fs.readdirSync(p);
  } catch {
    return [];
  }
}

function linkOr(fs: Pick<Fs, 'readlinkSync'>, p: string): string {
  try {
    return fs.readlinkSync(p);
  } catch {
    return '';
  }
}
