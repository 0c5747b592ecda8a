import { execFileSync, spawn } from 'node:child_process';
import { chmodSync, chownSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { socketPathForName } from '../../src/main/engine/home';
import { descendants, liveProcReader } from '../../src/main/engine/proc';
import { afterEach, beforeEach } from 'vitest';
import { controlPathFor } from '../../src/main/engine/hosts/ssh';
import { waitForExit } from '../agents/claude-run';
import { RigWorld } from './rig';

/**
 * Host tests need Debian's sshd and root (to make the remote user and run as it). Missing either
 * skips locally with the reason, and fails under CI, where .ci/run installs openssh-server.
 */
export function sshdMissing(): string | undefined {
  const why = !existsSync('/usr/sbin/sshd')
    ? 'no /usr/sbin/sshd (apt-get install -y openssh-server)'
    : process.getuid?.() !== 0
      ? 'host tests run as root (they add a local user for the remote side)'
      : undefined;
  if (!why) return undefined;
  if (process.env.CI) throw new Error(`CI must run the host tests: ${why}`);
  process.stdout.write(`skipped: host tests: ${why}\n`);
  return why;
}

/** The "remote machine" of the host tests: a dedicated local user reached through this test's own sshd. */
export const REMOTE_USER = 'rdremote';

function ensureRemoteUser(): { uid: number; gid: number } {
  try {
    execFileSync('id', ['-u', REMOTE_USER], { stdio: 'pipe' });
  } catch {
    execFileSync('useradd', ['--create-home', '--shell', '/bin/sh', REMOTE_USER], { stdio: 'pipe' });
    // useradd leaves the account locked ("!"), and sshd refuses locked accounts even for keys.
    execFileSync('usermod', ['-p', '*', REMOTE_USER], { stdio: 'pipe' });
  }
  const uid = Number(execFileSync('id', ['-u', REMOTE_USER], { encoding: 'utf8' }).trim());
  const gid = Number(execFileSync('id', ['-g', REMOTE_USER], { encoding: 'utf8' }).trim());
  return { uid, gid };
}

function freePort(): Promise<number> {
  return new Promise((res, rej) => {
    const s = createServer();
    s.once('error', rej);
    s.listen(0, '127.0.0.1', () => {
      const port = (s.address() as { port: number }).port;
      s.close(() => res(port));
    });
  });
}

/**
 * One sshd per test on 127.0.0.1:<free port>, with a generated host key and user key in the
 * test's temp folder, its own PidFile and authorized keys; stopped by pid (and the connection
 * processes it forked), never by name. The remote side has its own tmux socket name per test.
 */
export class TestSshd {
  readonly dir: string;
  readonly remoteDir: string;
  readonly userKey: string;
  readonly knownHosts: string;
  readonly tmuxSocket: string;
  port = 0;
  pid = 0;
  uid = 0;
  private readonly config: string;

  constructor() {
    this.dir = mkdtempSync(join(tmpdir(), 'rd-sshd-'));
    // The remote user reads its authorized keys and works in remote/: the folder must be traversable.
    chmodSync(this.dir, 0o755);
    this.remoteDir = join(this.dir, 'remote');
    this.userKey = join(this.dir, 'user_key');
    this.knownHosts = join(this.dir, 'known_hosts');
    this.config = join(this.dir, 'sshd_config');
    this.tmuxSocket = `rdr-${process.pid}-${Math.random().toString(36).slice(2, 8)}`;
  }

  async start(): Promise<this> {
    const { uid, gid } = ensureRemoteUser();
    this.uid = uid;
    mkdirSync(this.remoteDir);
    chownSync(this.remoteDir, uid, gid);
    mkdirSync('/run/sshd', { recursive: true });
    execFileSync('ssh-keygen', ['-q', '-t', 'ed25519', '-N', '', '-f', join(this.dir, 'host_key')]);
    execFileSync('ssh-keygen', ['-q', '-t', 'ed25519', '-N', '', '-f', this.userKey]);
    writeFileSync(join(this.dir, 'authorized_keys'), readFileSync(`${this.userKey}.pub`));
    chmodSync(join(this.dir, 'authorized_keys'), 0o644);
    this.port = await freePort();
    writeFileSync(this.knownHosts, `[127.0.0.1]:${this.port} ${readFileSync(join(this.dir, 'host_key.pub'), 'utf8')}`);
    writeFileSync(
      this.config,
      `${[
        `Port ${this.port}`,
        'ListenAddress 127.0.0.1',
        `HostKey ${join(this.dir, 'host_key')}`,
        `PidFile ${join(this.dir, 'sshd.pid')}`,
        `AuthorizedKeysFile ${join(this.dir, 'authorized_keys')}`,
        'StrictModes no',
        'UsePAM no',
        'PasswordAuthentication no',
        'KbdInteractiveAuthentication no',
        `AllowUsers ${REMOTE_USER}`,
        'PermitRootLogin no',
        'MaxSessions 200',
        'MaxStartups 100',
        'LogLevel ERROR',
        'PrintMotd no',
        'ClientAliveInterval 1',
        'ClientAliveCountMax 3',
      ].join('\n')}\n`,
    );
    await this.spawn();
    return this;
  }

  private async spawn(): Promise<void> {
    const child = spawn('/usr/sbin/sshd', ['-D', '-e', '-f', this.config], {
      stdio: ['ignore', 'ignore', 'pipe'],
      detached: false,
    });
    let err = '';
    child.stderr?.on('data', (d) => (err += String(d)));
    this.pid = child.pid!;
    const deadline = Date.now() + 5_000;
    for (;;) {
      try {
        execFileSync('ssh', [...this.clientArgs(), 'true'], { stdio: 'pipe', timeout: 3_000 });
        return;
      } catch {
        if (Date.now() > deadline) {
          await this.kill();
          throw new Error(`sshd did not start: ${err}`);
        }
        await new Promise((r) => setTimeout(r, 100));
      }
    }
  }

  /** Plain client options for a one-off command (no master), as the tests' own hand on the host. */
  clientArgs(): string[] {
    return [
      '-F',
      '/dev/null',
      '-p',
      String(this.port),
      '-i',
      this.userKey,
      '-o',
      'IdentitiesOnly=yes',
      '-o',
      'BatchMode=yes',
      '-o',
      'StrictHostKeyChecking=yes',
      '-o',
      `UserKnownHostsFile=${this.knownHosts}`,
      `${REMOTE_USER}@127.0.0.1`,
    ];
  }

  /** The rig spec's `hosts:` entry for this server. */
  hostYaml(name: string): string {
    return [
      `  ${name}:`,
      '    ssh:',
      '      host: 127.0.0.1',
      `      user: ${REMOTE_USER}`,
      `      port: ${this.port}`,
      `      identity_file: ${this.userKey}`,
      `      known_hosts_file: ${this.knownHosts}`,
      '      config_file: /dev/null',
      `    tmux_socket: ${this.tmuxSocket}`,
    ].join('\n');
  }

  /** Runs a command as the remote user on this machine (the test's hand on the "remote" host). */
  /** A program on the host's PATH dir (`<remoteDir>/bin`), readable and runnable by the remote user; its path. */
  installProgram(name: string, script: string): string {
    const bin = join(this.remoteDir, 'bin');
    mkdirSync(bin, { recursive: true });
    writeFileSync(join(bin, name), script);
    chmodSync(join(bin, name), 0o755);
    chmodSync(bin, 0o755);
    return join(bin, name);
  }

  asRemote(args: string[]): string {
    return execFileSync('runuser', ['-u', REMOTE_USER, '--', ...args], {
      encoding: 'utf8',
      stdio: ['ignore', 'pipe', 'pipe'],
      cwd: this.remoteDir,
    });
  }

  private readonly byHand: number[] = [];

  /**
   * Starts `argv` on the "remote" side as its user, outside Rigdesk (a person's own process there),
   * in its own process group; cleanup ends that group by its pid, never by a name.
   */
  startAsRemote(argv: string[], env: Record<string, string> = {}): number {
    const child = spawn(
      'runuser',
      ['-u', REMOTE_USER, '--', 'env', ...Object.entries(env).map(([k, v]) => `${k}=${v}`), ...argv],
      { detached: true, stdio: 'ignore', cwd: this.remoteDir },
    );
    this.byHand.push(child.pid!);
    return child.pid!;
  }

  remoteSessions(): string[] {
    try {
      return this.asRemote(['tmux', '-L', this.tmuxSocket, 'list-sessions', '-F', '#{session_name}'])
        .trim()
        .split('\n')
        .filter(Boolean);
    } catch {
      return [];
    }
  }

  /** Kills the daemon and every connection process it forked: a host that vanished mid-run. */
  async kill(): Promise<void> {
    if (!this.pid) return;
    const snap = liveProcReader().snapshot();
    const all = [this.pid, ...descendants(snap, this.pid).map((p) => p.pid)];
    for (const p of all) {
      try {
        process.kill(p, 'SIGKILL');
      } catch {
        /* gone */
      }
    }
    await Promise.all(all.map((p) => waitForExit(p, 3000)));
    this.pid = 0;
  }

  async restart(): Promise<void> {
    await this.kill();
    await this.spawn();
  }

  async cleanup(): Promise<void> {
    for (const pid of this.byHand.splice(0)) {
      try {
        process.kill(-pid, 'SIGKILL');
      } catch {
        /* gone */
      }
      await waitForExit(pid, 3000);
    }
    // The host's tmux server and its clients (control-mode watches whose ssh died with sshd may
    // linger), by pid: kill-server first, then SIGKILL whatever of those pids is left.
    const pids: number[] = [];
    try {
      pids.push(Number(this.asRemote(['tmux', '-L', this.tmuxSocket, 'display-message', '-p', '#{pid}']).trim()));
      pids.push(
        ...this.asRemote(['tmux', '-L', this.tmuxSocket, 'list-clients', '-F', '#{client_pid}'])
          .trim()
          .split('\n')
          .filter(Boolean)
          .map(Number),
      );
      this.asRemote(['tmux', '-L', this.tmuxSocket, 'kill-server']);
    } catch {
      /* no server */
    }
    for (const p of pids.filter((x) => Number.isInteger(x) && x > 1)) {
      try {
        process.kill(p, 'SIGKILL');
      } catch {
        /* gone */
      }
    }
    rmSync(socketPathForName(this.tmuxSocket, this.uid, {}), { force: true });
    await this.kill();
    rmSync(this.dir, { recursive: true, force: true });
  }
}

/** Ends the ssh master a Rigdesk home opened to a host (by its control socket, not by name). */
export function closeMaster(controlPath: string): void {
  try {
    execFileSync('ssh', ['-F', '/dev/null', '-o', `ControlPath=${controlPath}`, '-O', 'exit', 'rigdesk-host'], {
      stdio: 'ignore',
      timeout: 3000,
    });
  } catch {
    /* none */
  }
}

/**
 * One Rigdesk world and one sshd per test of the enclosing describe; after each, the world's ssh
 * master to `host` is closed, the sshd and the remote side cleaned up by pid, the world shut down.
 */
export function sshWorldPerTest(host = 'box'): { w: RigWorld; sshd: TestSshd } {
  const ctx = {} as { w: RigWorld; sshd: TestSshd };
  beforeEach(async () => {
    ctx.w = new RigWorld();
    ctx.sshd = await new TestSshd().start();
  });
  afterEach(async () => {
    closeMaster(controlPathFor(ctx.w.home, host));
    await ctx.sshd?.cleanup();
    await ctx.w.shutdown();
  });
  return ctx;
}
