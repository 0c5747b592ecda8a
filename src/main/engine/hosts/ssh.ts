import { createHash } from 'node:crypto';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Exec, ExecOptions, ExecResult } from '../deps';
import type { SshTarget } from './types';

/**
 * OpenSSH as a transport. Every command to a host rides one long-lived multiplexed connection
 * (ControlMaster): the first call opens it, later calls reuse its socket and cost one round trip
 * each, with no new TCP connection or key exchange.
 */

/** ssh exits 255 when it (not the remote command) failed: no route, refused, auth, dead master. */
export const SSH_FAILED = 255;

/**
 * POSIX single-quote quoting. ssh joins its command arguments into one string for the remote
 * login shell, so each argument is quoted here and nothing reaches that shell unquoted.
 */
export function shq(arg: string): string {
  if (/^[A-Za-z0-9_@%+=:,./-]+$/.test(arg)) return arg;
  return `'${arg.replace(/'/g, `'\\''`)}'`;
}

export function remoteCommand(file: string, args: readonly string[]): string {
  return [file, ...args].map(shq).join(' ');
}

/**
 * The control socket's path. Unix socket paths are limited to ~104 bytes, so it is a short hash
 * of (Rigdesk home, host) under the temp folder, never a path that grows with the home's.
 */
export function controlPathFor(home: string, hostName: string, base = tmpdir()): string {
  const h = createHash('sha256').update(`${home}\0${hostName}`).digest('hex').slice(0, 16);
  return join(base, `rdcm-${h}`);
}

export interface SshOptions {
  controlPath: string;
  /** How long an idle master lives on after its last client (seconds). */
  persistSeconds?: number;
  connectTimeoutSeconds?: number;
}

/**
 * The ssh options and destination, without a command: shared by exec, the pty and `attach`. `--`
 * comes before the destination, so a host or user that starts with `-` (refused where it is given:
 * the spec, the contract, the CLI) could never be read as an option (`-oProxyCommand=…`); after
 * the destination ssh reads no more options, and the rest is the remote command.
 */
export function sshBaseArgs(t: SshTarget, o: SshOptions): string[] {
  const args: string[] = [];
  if (t.configFile) args.push('-F', t.configFile);
  if (t.port) args.push('-p', String(t.port));
  if (t.identityFile) args.push('-i', t.identityFile, '-o', 'IdentitiesOnly=yes');
  if (t.knownHostsFile) args.push('-o', `UserKnownHostsFile=${t.knownHostsFile}`);
  args.push(
    '-o',
    'BatchMode=yes',
    '-o',
    `StrictHostKeyChecking=${t.strictHostKeyChecking ?? 'yes'}`,
    '-o',
    `ConnectTimeout=${o.connectTimeoutSeconds ?? 3}`,
    // A dead peer must be noticed in seconds, not after TCP's minutes: the host goes unreachable.
    '-o',
    'ServerAliveInterval=1',
    '-o',
    'ServerAliveCountMax=2',
    '-o',
    'ControlMaster=auto',
    '-o',
    `ControlPath=${o.controlPath}`,
    '-o',
    `ControlPersist=${o.persistSeconds ?? 60}`,
  );
  args.push('--', destination(t));
  return args;
}

/** `user@host`, or the host alone. */
export function destination(t: SshTarget): string {
  return t.user ? `${t.user}@${t.host}` : t.host;
}

/** Runs `file args` on the host through the shared connection; the result reads like a local exec. */
export function sshExec(t: SshTarget, o: SshOptions, inner: Exec): Exec & { roundTrips: number } {
  const f = (async (file: string, args: readonly string[], opts: ExecOptions = {}): Promise<ExecResult> => {
    f.roundTrips += 1;
    // The remote side gets no local environment: only the command line and stdin cross.
    const r = await inner('ssh', [...sshBaseArgs(t, o), remoteCommand(file, args)], {
      input: opts.input,
      timeoutMs: opts.timeoutMs,
    });
    if (r.spawnError) return { ...r, spawnError: `ssh: ${r.spawnError}` };
    // tmux, sh, grep and cat never exit 255 here: that status is ssh's own failure, whatever it printed.
    if (r.code === SSH_FAILED) return { ...r, code: null, spawnError: `ssh: ${lastLine(r.stderr)}` };
    if (r.timedOut) return { ...r, spawnError: 'ssh: timed out' };
    return r;
  }) as Exec & { roundTrips: number };
  f.roundTrips = 0;
  return f;
}

function lastLine(s: string): string {
  return s.trim().split('\n').pop() || 'ssh failed without a message';
}
