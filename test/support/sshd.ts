import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import {
  chmodSync,
  chownSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  readlinkSync,
  rmSync,
  writeFileSync,
} from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, beforeEach } from 'vitest';
import { controlPathFor } from '../../src/main/engine/hosts/ssh';
import type { RequestOf } from '../../src/shared/contract';
import { descendants, liveProcReader } from '../../src/main/engine/proc';
import { waitForExit } from '../agents/claude-run';
import { RigWorld } from './rig';
import {
  chownTree,
  ensureRemoteUser,
  HOST_CLIS,
  HostNamespace,
  loginPath,
  linkClis,
  namespaceSupport,
  REMOTE_HOME,
  REMOTE_USER,
} from './test-host';

export { HOST_CLIS, REMOTE_HOME, REMOTE_USER } from './test-host';

/**
 * Host tests need Debian's sshd and root (to make the host's user and run as it). Missing either
 * skips locally with the reason, and fails under CI, where .ci/run installs openssh-server.
 */
export function sshdMissing(): string | undefined {
  const why = !existsSync('/usr/sbin/sshd')
    ? 'no /usr/sbin/sshd (apt-get install -y openssh-server)'
    : process.getuid?.() !== 0
      ? 'host tests run as root (they add a local user for the host side)'
      : undefined;
  if (!why) return undefined;
  if (process.env.CI) throw new Error(`CI must run the host tests: ${why}`);
  process.stdout.write(`skipped: host tests: ${why}\n`);
  return why;
}

/**
 * For a test that holds only on a host with its own mount and PID namespace (a file at the host's
 * path on this machine must not be the host's file): skips loudly without it, fails under CI.
 */
export function hostNamespaceMissing(): string | undefined {
  const missing = sshdMissing();
  if (missing) return missing;
  const ns = namespaceSupport();
  if (ns.namespace) return undefined;
  const why = `the test host has no namespace of its own (${ns.why})`;
  if (process.env.CI) throw new Error(`CI must run this host test: ${why}`);
  process.stdout.write(`skipped: ${why}\n`);
  return why;
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
 * One sshd per host on 127.0.0.1:<free port>, logging into the test host (test-host.ts): with a
 * generated host key and user key in the test's temp folder, its own PidFile and authorized keys;
 * stopped by pid (and the connection processes it forked), never by name. The host has its own
 * tmux socket name per TestSshd. Paths a test passes to the engine are the host's (`home`,
 * `remoteDir`); the test's own hand reads and writes them through `hostPath`, `writeHost`,
 * `asRemote`.
 */
export class TestSshd {
  readonly dir: string;
  /** The host user's home, as the host sees it. */
  readonly home = REMOTE_HOME;
  /** This TestSshd's own folder under the host's home: seats' cwd and config homes go here. */
  readonly remoteDir: string;
  readonly userKey: string;
  readonly knownHosts: string;
  readonly tmuxSocket: string;
  port = 0;
  pid = 0;
  uid = 0;
  gid = 0;
  ns: HostNamespace | undefined;
  /** The host's own bin folder, first on its PATH: links to the real agent CLIs. */
  readonly binDir: string;
  private readonly sshdDir: string;
  private readonly config: string;
  private readonly byHand: number[] = [];
  private readonly forwards: ChildProcess[] = [];

  /** `clis`: which agent CLIs the host has on its PATH (all of the project's by default). */
  constructor(private readonly clis: readonly string[] = HOST_CLIS) {
    this.dir = mkdtempSync(join(tmpdir(), 'rd-sshd-'));
    // sshd (as the host's user, without the namespace) reads its authorized keys here.
    chmodSync(this.dir, 0o755);
    this.sshdDir = join(this.dir, 'sshd');
    this.userKey = join(this.dir, 'user_key');
    this.knownHosts = join(this.dir, 'known_hosts');
    this.config = join(this.sshdDir, 'sshd_config');
    const tag = `${process.pid}-${Math.random().toString(36).slice(2, 8)}`;
    this.tmuxSocket = `rdr-${tag}`;
    this.remoteDir = `${REMOTE_HOME}/t-${tag}`;
    // Without a namespace the home is shared by every TestSshd: each keeps its own PATH folder.
    this.binDir = namespaceSupport().namespace ? `${REMOTE_HOME}/bin` : `${this.remoteDir}/.path-bin`;
  }

  /** Whether the host runs in a namespace of its own (else it is the separate user alone). */
  get isolated(): boolean {
    return this.ns !== undefined;
  }

  async start(): Promise<this> {
    const ids = ensureRemoteUser();
    this.uid = ids.uid;
    this.gid = ids.gid;
    mkdirSync(this.sshdDir, { mode: 0o755 });
    const localHome = namespaceSupport().namespace ? join(this.dir, 'home') : REMOTE_HOME;
    mkdirSync(localHome, { recursive: true, mode: 0o755 });
    chownSync(localHome, ids.uid, ids.gid);
    if (namespaceSupport().namespace) this.ns = await HostNamespace.start(this.dir);
    this.writeHost(`${this.remoteDir}/.keep`, '');
    linkClis(this.hostPath(this.binDir), ids, this.clis);
    mkdirSync('/run/sshd', { recursive: true });
    execFileSync('ssh-keygen', ['-q', '-t', 'ed25519', '-N', '', '-f', join(this.sshdDir, 'host_key')]);
    execFileSync('ssh-keygen', ['-q', '-t', 'ed25519', '-N', '', '-f', this.userKey]);
    writeFileSync(join(this.sshdDir, 'authorized_keys'), readFileSync(`${this.userKey}.pub`));
    chmodSync(join(this.sshdDir, 'authorized_keys'), 0o644);
    this.port = await freePort();
    writeFileSync(
      this.knownHosts,
      `[127.0.0.1]:${this.port} ${readFileSync(join(this.sshdDir, 'host_key.pub'), 'utf8')}`,
    );
    writeFileSync(
      this.config,
      `${[
        `Port ${this.port}`,
        'ListenAddress 127.0.0.1',
        `HostKey ${join(this.sshdDir, 'host_key')}`,
        `PidFile ${join(this.sshdDir, 'sshd.pid')}`,
        `AuthorizedKeysFile ${join(this.sshdDir, 'authorized_keys')}`,
        'StrictModes no',
        'UsePAM no',
        'PasswordAuthentication no',
        'KbdInteractiveAuthentication no',
        `AllowUsers ${REMOTE_USER}`,
        'PermitRootLogin no',
        // The host's own PATH, with the agent CLIs linked in its home.
        `SetEnv PATH=${loginPath(this.binDir)}`,
        'AllowTcpForwarding yes',
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
    const argv = ['/usr/sbin/sshd', '-D', '-e', '-f', this.config];
    const [file, ...args] = this.ns ? this.ns.enter(argv) : argv;
    const child = spawn(file!, args, { stdio: ['ignore', 'ignore', 'pipe'], detached: false });
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

  /** A rig spec with this server as host `box` and one pod, `team`, of the given member entries. */
  rigYaml(rig: string, members: string[]): string {
    const lines = [`name: ${rig}`, 'hosts:', this.hostYaml('box'), 'pods:', '  - id: team', '    members:'];
    return `${[...lines, ...members.map((m) => `      - ${m}`)].join('\n')}\n`;
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

  /** `rigdesk hosts add`'s request for this server as host `name` (every ssh option it has). */
  hostsAddRequest(name: string): RequestOf<'hosts.add'> {
    return {
      name,
      host: '127.0.0.1',
      user: REMOTE_USER,
      port: this.port,
      identityFile: this.userKey,
      knownHostsFile: this.knownHosts,
      strictHostKeyChecking: 'yes',
      configFile: '/dev/null',
      tmuxSocket: this.tmuxSocket,
    };
  }

  /** Where a path of the host is on this machine, for the test's own reads (root reads anything). */
  hostPath(path: string): string {
    if (!this.ns) return path;
    if (path === REMOTE_HOME || path.startsWith(`${REMOTE_HOME}/`))
      return join(this.dir, 'home', path.slice(REMOTE_HOME.length));
    return this.ns.viaRoot(path);
  }

  readHost(path: string): string {
    return readFileSync(this.hostPath(path), 'utf8');
  }

  existsHost(path: string): boolean {
    return existsSync(this.hostPath(path));
  }

  /** Writes a file on the host as its user (folders made as needed, owned by that user). */
  writeHost(path: string, content: string | Buffer, mode = 0o644): void {
    this.asRemote(
      ['sh', '-c', 'mkdir -p "$(dirname "$1")" && cat > "$1" && chmod "$2" "$1"', 'sh', path, mode.toString(8)],
      {
        input: content,
      },
    );
  }

  /** Hands a tree the test wrote as root at the host's path (a fixture) to the host's user. */
  giveToUser(path: string): void {
    chownTree(this.hostPath(path), { uid: this.uid, gid: this.gid });
  }

  /** The host's PATH as its logins get it. */
  loginPath(): string {
    return loginPath(this.binDir);
  }

  /** The environment a login on the host has (what sshd gives a session), plus `env`. */
  loginEnv(env: Record<string, string> = {}): string[] {
    const base = {
      HOME: REMOTE_HOME,
      USER: REMOTE_USER,
      LOGNAME: REMOTE_USER,
      SHELL: '/bin/sh',
      PATH: loginPath(this.binDir),
    };
    return Object.entries({ ...base, ...env }).map(([k, v]) => `${k}=${v}`);
  }

  /** argv that runs as the host's user, on the host (in its namespace), in `cwd` there. */
  private remoteArgv(argv: string[], env: Record<string, string> = {}, cwd = this.remoteDir): string[] {
    const inner = [
      'runuser',
      '-u',
      REMOTE_USER,
      '--',
      'env',
      '-i',
      ...this.loginEnv(env),
      'sh',
      '-c',
      'cd "$0" 2>/dev/null || cd; exec "$@"',
      cwd,
      ...argv,
    ];
    return this.ns ? this.ns.enter(inner) : inner;
  }

  /** Runs a command as the host's user on the host (the test's own hand there). */
  asRemote(args: string[], opts: { input?: string | Buffer; env?: Record<string, string>; cwd?: string } = {}): string {
    const [file, ...rest] = this.remoteArgv(args, opts.env, opts.cwd);
    return execFileSync(file!, rest, {
      encoding: 'utf8',
      input: opts.input,
      stdio: ['pipe', 'pipe', 'pipe'],
      timeout: 30_000,
    });
  }

  /** A program in this TestSshd's own bin folder on the host (not on its PATH); its path there. */
  installProgram(name: string, script: string): string {
    const path = `${this.remoteDir}/bin/${name}`;
    this.writeHost(path, script, 0o755);
    return path;
  }

  /**
   * Starts `argv` on the host as its user, outside Rigdesk (a person's own process there), in its
   * own process group; cleanup ends that group by its pid, never by a name.
   */
  startAsRemote(argv: string[], env: Record<string, string> = {}): number {
    const [file, ...rest] = this.remoteArgv(argv, env);
    const child = spawn(file!, rest, { detached: true, stdio: 'ignore' });
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

  /**
   * A port on the host's loopback that reaches `localPort` on this machine's, through an ssh
   * reverse forward (the fake model server stays on 127.0.0.1 here; the host reaches it as its own).
   */
  async reverseForward(localPort: number): Promise<number> {
    const child = spawn(
      'ssh',
      [
        ...this.clientArgs().slice(0, -1),
        '-N',
        '-o',
        'ExitOnForwardFailure=yes',
        '-R',
        `127.0.0.1:0:127.0.0.1:${localPort}`,
        this.clientArgs().at(-1)!,
      ],
      { stdio: ['ignore', 'ignore', 'pipe'] },
    );
    this.forwards.push(child);
    let err = '';
    child.stderr!.on('data', (d) => (err += String(d)));
    const deadline = Date.now() + 10_000;
    for (;;) {
      const m = /Allocated port (\d+) for remote forward/.exec(err);
      if (m) return Number(m[1]);
      if (child.exitCode !== null || Date.now() > deadline)
        throw new Error(`the reverse forward to port ${localPort} did not start: ${err}`);
      await new Promise((r) => setTimeout(r, 20));
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
    for (const f of this.forwards.splice(0)) {
      f.kill('SIGKILL');
      if (f.pid) await waitForExit(f.pid, 3000);
    }
    for (const pid of this.byHand.splice(0)) {
      try {
        process.kill(-pid, 'SIGKILL');
      } catch {
        /* gone */
      }
      await waitForExit(pid, 3000);
    }
    if (this.ns) {
      // The namespace's end takes every process of the host with it, tmux servers included.
      await this.kill();
      await this.ns.stop();
    } else await this.cleanupShared();
    rmSync(this.dir, { recursive: true, force: true });
  }

  /** Without a namespace the host's processes live among this machine's: each is ended by its pid. */
  private async cleanupShared(): Promise<void> {
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
    rmSync(`/tmp/tmux-${this.uid}/${this.tmuxSocket}`, { force: true });
    await this.kill();
    // The host's agents outlive their tmux server by a moment and write into their homes: each
    // process of the host's user that works in this TestSshd's folder is ended by its pid first.
    const mine = [...liveProcReader().snapshot().byPid.values()]
      .filter((p) => p.uid === this.uid && this.worksIn(p.pid))
      .map((p) => p.pid);
    for (const p of mine) {
      try {
        process.kill(p, 'SIGKILL');
      } catch {
        /* gone */
      }
    }
    await Promise.all(mine.map((p) => waitForExit(p, 3000)));
    rmSync(this.remoteDir, { recursive: true, force: true, maxRetries: 5, retryDelay: 100 });
  }

  /** Whether a process of this machine runs in, or was started with a variable naming, this folder. */
  private worksIn(pid: number): boolean {
    try {
      if (readlinkSync(`/proc/${pid}/cwd`).startsWith(this.remoteDir)) return true;
      return readFileSync(`/proc/${pid}/environ`, 'latin1').includes(this.remoteDir);
    } catch {
      return false;
    }
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
 * master to `host` is closed, the sshd and the host cleaned up by pid, the world shut down.
 */
export function sshWorldPerTest(host = 'box', clis?: readonly string[]): { w: RigWorld; sshd: TestSshd } {
  const ctx = {} as { w: RigWorld; sshd: TestSshd };
  beforeEach(async () => {
    ctx.w = new RigWorld();
    ctx.sshd = await new TestSshd(clis).start();
  });
  afterEach(async () => {
    closeMaster(controlPathFor(ctx.w.home, host));
    await ctx.sshd?.cleanup();
    await ctx.w.shutdown();
  });
  return ctx;
}

/** One host for a whole file (a host with real agents is worth sharing); a world per test. */
export function sharedHost(host = 'box'): { w: RigWorld; sshd: TestSshd } {
  const ctx = {} as { w: RigWorld; sshd: TestSshd };
  beforeAll(async () => {
    ctx.sshd = await new TestSshd().start();
  });
  beforeEach(() => {
    ctx.w = new RigWorld();
  });
  afterEach(async () => {
    closeMaster(controlPathFor(ctx.w.home, host));
    await ctx.w.shutdown();
  });
  afterAll(async () => {
    await ctx.sshd?.cleanup();
  });
  return ctx;
}
