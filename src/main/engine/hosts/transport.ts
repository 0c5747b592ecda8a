import { execFileSync } from 'node:child_process';
import type { Clock, Exec, ExecOptions, ExecResult } from '../deps';
import type { ProcInfo } from '../proc/types';
import { TmuxClient } from '../tmux/client';
import type { ControlConnection } from '../tmux/control';
import { carryControl, controlArgs, linksOf } from '../tmux/held';
import { serverArgs, serverKey, type TmuxServerRef } from '../tmux/identity';
import { hostScanArgs, parseHostScan, type HostScan } from './remote-proc';
import {
  controlPathFor,
  destination,
  remoteCommand,
  SSH_FAILED,
  shq,
  sshBaseArgs,
  sshExec,
  type SshOptions,
} from './ssh';
import type { HostHealth, HostSpec, SshTarget } from './types';

/** Reconnect back-off: 0.5 s doubling to 5 s, so a healed partition is seen within seconds. */
export const BACKOFF_MIN_MS = 500;
export const BACKOFF_MAX_MS = 5_000;

export function backoffMs(failures: number): number {
  return Math.min(BACKOFF_MAX_MS, BACKOFF_MIN_MS * 2 ** Math.max(0, failures - 1));
}

export type ScanOutcome =
  | { ok: true; scan: HostScan; takenAt: number }
  | { ok: false; unreachable: true; reason: string }
  | { ok: false; unreachable: false; reason: string };

/**
 * One remote host: its exec over the shared ssh connection, its tmux server, its process table.
 * Health is kept here: after a failure, calls inside the back-off window fail at once (no
 * connect timeout per refresh), and the first call after it tries the host again.
 */
export class SshHost {
  readonly exec: Exec & { roundTrips: number };
  readonly opts: SshOptions;
  readonly tmuxRef: TmuxServerRef;
  private failures = 0;
  private retryAt = 0;
  private lastReason = '';
  private lastOkAt = 0;
  private rttMs = 0;

  constructor(
    readonly spec: HostSpec & { ssh: SshTarget },
    home: string,
    private readonly clock: Clock,
    inner: Exec,
  ) {
    this.opts = { controlPath: controlPathFor(home, spec.name) };
    this.exec = this.guarded(sshExec(spec.ssh, this.opts, inner));
    this.tmuxRef = { kind: 'name', name: spec.tmuxSocket ?? 'rigdesk', host: spec.name };
    const control = this.heldClient(inner);
    carryControl(this.exec, (ref) => (serverKey(ref) === serverKey(this.tmuxRef) ? control : undefined));
  }

  /**
   * Rigdesk's tmux server on the host gets a held control-mode client too: `tmux -C` there, run by
   * one ssh session over the shared connection (no pty: a pipe both ways), so a capture or a send
   * is a line on it instead of an ssh round trip of its own. Inside the back-off window it is not
   * tried; where it cannot be started the host's exec answers one-shot, through the same health.
   */
  private heldClient(inner: Exec): ControlConnection | undefined {
    const ref = this.tmuxRef;
    const key = `${serverKey(ref)} ${JSON.stringify(this.spec.ssh)}`;
    return linksOf(inner)?.link(key, () => {
      const oneShot = new TmuxClient(ref, { exec: this.exec });
      return {
        key: serverKey(ref),
        argv: this.streamArgv('tmux', ['-u', ...serverArgs(ref), ...controlArgs()]),
        probe: async () => 'unknown',
        gate: () => {
          const held = this.holdingOff();
          return held === undefined
            ? undefined
            : {
                code: null,
                signal: null,
                stdout: '',
                stderr: '',
                timedOut: false,
                spawnError: `ssh: ${this.name} unreachable, retrying after back-off (${held})`,
              };
        },
        unreachable: (code, stderr) => {
          if (code !== SSH_FAILED) return undefined;
          const why = `ssh: ${stderr.trim().split('\n').pop() || 'ssh failed without a message'}`;
          this.noteFailure(why);
          return { code: null, signal: null, stdout: '', stderr, timedOut: false, spawnError: why };
        },
        absentText: `no server running on ${ref.kind === 'name' ? ref.name : ref.path}`,
        oneShot: (args, o) => oneShot.runOneShot(args, o),
      };
    });
  }

  get name(): string {
    return this.spec.name;
  }

  health(): HostHealth {
    if (this.failures > 0)
      return {
        host: this.name,
        state: 'unreachable',
        checkedAt: this.clock.now(),
        reason: this.lastReason,
        retryAt: this.retryAt,
        failures: this.failures,
      };
    return { host: this.name, state: 'reachable', checkedAt: this.lastOkAt, rttMs: this.rttMs };
  }

  /**
   * Every command to the host goes through its health: inside the back-off window it fails at once
   * as unreachable (no connect attempt); an ssh failure opens the window; any answer closes it.
   */
  private guarded(raw: Exec & { roundTrips: number }): Exec & { roundTrips: number } {
    const f = (async (file: string, args: readonly string[], opts?: ExecOptions): Promise<ExecResult> => {
      const held = this.holdingOff();
      if (held)
        return {
          code: null,
          signal: null,
          stdout: '',
          stderr: '',
          timedOut: false,
          spawnError: `ssh: ${this.name} unreachable, retrying after back-off (${held})`,
        };
      const r = await raw(file, args, opts);
      if (r.spawnError) this.noteFailure(r.spawnError);
      else this.failures = 0;
      return r;
    }) as Exec & { roundTrips: number };
    Object.defineProperty(f, 'roundTrips', { get: () => raw.roundTrips });
    return f;
  }

  /** Inside the back-off window after a failure: say unreachable without contacting the host. */
  holdingOff(): string | undefined {
    return this.failures > 0 && this.clock.now() < this.retryAt ? this.lastReason : undefined;
  }

  private noteFailure(reason: string): void {
    this.failures += 1;
    this.lastReason = reason;
    this.retryAt = this.clock.now() + backoffMs(this.failures);
  }

  private noteOk(ms: number): void {
    this.failures = 0;
    this.lastOkAt = this.clock.now();
    this.rttMs = ms;
  }

  /** One round trip: the host's panes on Rigdesk's server there, and its process table. */
  async scan(envNames: readonly string[], glob = '[0-9]*', withPanes = true): Promise<ScanOutcome> {
    const t0 = this.clock.now();
    const r = await this.exec(
      'sh',
      hostScanArgs({
        glob,
        tmuxSocket: withPanes ? (this.tmuxRef.kind === 'name' ? this.tmuxRef.name : undefined) : undefined,
        envNames,
      }),
      { timeoutMs: 4_000 },
    );
    if (r.spawnError) return { ok: false, unreachable: true, reason: this.lastReason || r.spawnError };
    try {
      const scan = parseHostScan(r.stdout);
      this.noteOk(this.clock.now() - t0);
      return { ok: true, scan, takenAt: this.clock.now() };
    } catch (e) {
      // The host answered but the scan did not complete (no /proc, a broken shell): unknown, not gone.
      return {
        ok: false,
        unreachable: false,
        reason: `${(e as Error).message}${r.stderr ? `: ${r.stderr.trim().slice(0, 200)}` : ''}`,
      };
    }
  }

  /** One process read fresh on the host (revalidation before a write); 'unknown' when the host did not answer. */
  async readProc(pid: number): Promise<ProcInfo | undefined | 'unknown'> {
    if (!Number.isSafeInteger(pid) || pid <= 0) return undefined;
    const s = await this.scan([], String(pid), false);
    if (!s.ok) return 'unknown';
    return s.scan.procs.get(pid);
  }

  /** What a person pastes to reach a seat: ssh with a terminal, then tmux attach there. */
  attachArgv(sessionId: string): string[] {
    const ref = this.tmuxRef;
    const tmux = remoteCommand('tmux', [
      ...(ref.kind === 'name' ? ['-L', ref.name] : ['-S', ref.path]),
      'attach-session',
      '-t',
      sessionId,
    ]);
    return ['ssh', '-t', ...personArgs(this.spec.ssh), tmux];
  }

  /**
   * The window's live terminal of a remote seat: an attach client on the host, inside a pty here,
   * riding the shared connection (no new login per viewer). `-f ignore-size` as for local viewers.
   */
  viewerArgv(sessionId: string): string[] {
    const ref = this.tmuxRef;
    const tmux = remoteCommand('tmux', [
      ...(ref.kind === 'name' ? ['-L', ref.name] : ['-S', ref.path]),
      'attach-session',
      '-t',
      sessionId,
      '-f',
      'ignore-size',
    ]);
    return ['ssh', '-tt', ...sshBaseArgs(this.spec.ssh, this.opts), tmux];
  }

  /** A read-only control-mode client of one session on the host (activity), over the shared connection. */
  controlArgv(sessionId: string): string[] {
    const ref = this.tmuxRef;
    return this.streamArgv('tmux', [
      '-u',
      ...(ref.kind === 'name' ? ['-L', ref.name] : ['-S', ref.path]),
      '-C',
      'attach-session',
      '-r',
      '-f',
      'ignore-size',
      '-t',
      sessionId,
    ]);
  }

  /** Any command on the host as a long-lived child here, over the shared connection (no pty). */
  streamArgv(file: string, args: readonly string[]): string[] {
    return ['ssh', ...sshBaseArgs(this.spec.ssh, this.opts), remoteCommand(file, args)];
  }

  /** Closes the shared connection (tests, and `rigdesk hosts` after a check). */
  close(): void {
    this.control('exit');
  }

  /**
   * Asks the shared connection to take no new sessions and to end once its last one ends: the
   * sessions other Rigdesk processes on this home run over it go on (unlike `close`), and their
   * next call opens a new master.
   */
  stop(): void {
    this.control('stop');
  }

  private control(op: 'exit' | 'stop'): void {
    try {
      execFileSync('ssh', ['-F', '/dev/null', '-o', `ControlPath=${this.opts.controlPath}`, '-O', op, 'rigdesk-host'], {
        stdio: 'ignore',
        timeout: 3_000,
      });
    } catch {
      /* no master running */
    }
  }
}

/** The ssh line a person runs: the host's address and key, without the engine's batch/control options (`--` before the destination, as sshBaseArgs). */
export function personArgs(t: SshTarget): string[] {
  const out: string[] = [];
  if (t.configFile) out.push('-F', t.configFile);
  if (t.port) out.push('-p', String(t.port));
  if (t.identityFile) out.push('-i', t.identityFile);
  if (t.knownHostsFile) out.push('-o', `UserKnownHostsFile=${t.knownHostsFile}`);
  out.push('--', destination(t));
  return out;
}

export { shq };
