import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import { chownSync, lstatSync, mkdirSync, readdirSync, readFileSync, symlinkSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { waitForExit } from '../agents/claude-run';

/**
 * The machine the host tests log into. It is this machine made to look like another one to the
 * engine, as far as the kernel lets a test do that:
 *
 * - a Unix user of its own (`rdhost`, made here when missing), with its own home, its own config
 *   homes under it, and its own PATH, where the real agent CLIs of the project's devDependencies
 *   are linked (`<home>/bin`; sshd's `SetEnv` gives every login that PATH);
 * - where `unshare` is allowed (root, as in CI): its own mount and PID namespace. Inside it, /home
 *   is a tmpfs holding only that user's home (bound from a folder of the test's), /tmp is a tmpfs
 *   of its own and /proc shows only the host's processes, under their own pids. So the engine's
 *   /proc, its /tmp and a file at a seat's path on this machine say nothing about the host; a pid
 *   the host names is not the pid of that process here. Everything in the namespace ends with its
 *   first process (a small reaper), which the test kills by pid.
 *
 * Without the namespace (unshare refused, or not root) the host is the separate user alone, on
 * the same disk and /proc, and the tests say so; the test that proves the host separate skips.
 */
export const REMOTE_USER = 'rdhost';
export const REMOTE_HOME = `/home/${REMOTE_USER}`;
/**
 * The agent CLIs linked into the host's PATH (the project's own, from node_modules/.bin): omp runs
 * on bun (`#!/usr/bin/env bun`), so bun is there too, and so is omo (whose package is the plugin an
 * omo seat's OpenCode loads).
 */
export const HOST_CLIS = ['claude', 'codex', 'pi', 'opencode', 'gemini', 'qwen', 'omp', 'bun', 'omo'] as const;
const PROJECT_ROOT = fileURLToPath(new URL('../..', import.meta.url)).replace(/\/$/, '');
const PROJECT_BIN = join(PROJECT_ROOT, 'node_modules', '.bin');
/** The host's PATH: its own bin folder (the agent CLIs), then the system's. */
export const loginPath = (bin: string): string => `${bin}:/usr/local/bin:/usr/bin:/bin`;

let probed: { namespace: boolean; why?: string } | undefined;

/** Whether this machine lets a test give its host its own mount and PID namespace (measured once). */
export function namespaceSupport(): { namespace: boolean; why?: string } {
  if (probed) return probed;
  if (process.getuid?.() !== 0) probed = { namespace: false, why: 'not root' };
  // The fallback is kept runnable on purpose (RDTEST_HOST_NAMESPACE=off), so it stays tested.
  else if (process.env.RDTEST_HOST_NAMESPACE === 'off')
    probed = { namespace: false, why: 'turned off by RDTEST_HOST_NAMESPACE=off' };
  else
    try {
      execFileSync('unshare', ['--mount', '--pid', '--fork', '--mount-proc', 'true'], { stdio: 'pipe', timeout: 5000 });
      probed = { namespace: true };
    } catch (e) {
      const err = String((e as { stderr?: unknown }).stderr ?? (e as Error).message).trim();
      probed = { namespace: false, why: `unshare --mount --pid refused: ${err}` };
      process.stdout.write(
        `host tests: ${probed.why}; the test host is a separate user only, on this machine's disk and /proc\n`,
      );
    }
  return probed;
}

export function ensureRemoteUser(): { uid: number; gid: number } {
  try {
    execFileSync('id', ['-u', REMOTE_USER], { stdio: 'pipe' });
  } catch {
    try {
      // No home made here: with the namespace it exists only there; without, start() makes it.
      execFileSync('useradd', ['--no-create-home', '--home-dir', REMOTE_HOME, '--shell', '/bin/sh', REMOTE_USER], {
        stdio: 'pipe',
      });
    } catch (e) {
      // Another test file made it at the same moment.
      if (!/already exists/.test(String((e as { stderr?: unknown }).stderr))) throw e;
    }
    // useradd leaves the account locked ("!"), and sshd refuses locked accounts even for keys.
    execFileSync('usermod', ['-p', '*', REMOTE_USER], { stdio: 'pipe' });
  }
  const uid = Number(execFileSync('id', ['-u', REMOTE_USER], { encoding: 'utf8' }).trim());
  const gid = Number(execFileSync('id', ['-g', REMOTE_USER], { encoding: 'utf8' }).trim());
  return { uid, gid };
}

/** A bin folder with a link to each named agent CLI of the project (readable and runnable by the user). */
export function linkClis(bin: string, ids: { uid: number; gid: number }, names: readonly string[] = HOST_CLIS): void {
  mkdirSync(bin, { recursive: true, mode: 0o755 });
  chownSync(bin, ids.uid, ids.gid);
  for (const name of names) {
    try {
      symlinkSync(join(PROJECT_BIN, name), join(bin, name));
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code !== 'EEXIST') throw e;
    }
  }
}

/** Gives a tree made by root (a fixture written at the host's path) to the host's user. */
export function chownTree(path: string, ids: { uid: number; gid: number }): void {
  const st = lstatSync(path);
  chownSync(path, ids.uid, ids.gid);
  if (st.isDirectory()) for (const n of readdirSync(path)) chownTree(join(path, n), ids);
}

/**
 * The namespace's first process: mounts the host's /home (a tmpfs with the user's home bound
 * from `<dir>/home`) and its own /tmp, keeps sshd's own folder visible at the same path (and the
 * project, whose CLIs the host's PATH links, when it was cloned under /tmp), says `ready`, then
 * reaps every orphan (tmux servers) until it is killed.
 */
const NAMESPACE_SETUP = [
  'set -e',
  'dir=$1; home=$2; proj=$3',
  'mount -t tmpfs -o mode=755 rdhost-home /home',
  'mkdir -p "$home"; mount --bind "$dir/home" "$home"',
  'mkdir /home/.rdsshd; mount --bind "$dir/sshd" /home/.rdsshd',
  'case "$proj" in /tmp/*) mkdir /home/.rdproj; mount --bind "$proj" /home/.rdproj;; esac',
  'mount -t tmpfs -o mode=1777 rdhost-tmp /tmp',
  'mkdir -p "$dir/sshd"; mount --move /home/.rdsshd "$dir/sshd"; rmdir /home/.rdsshd',
  'case "$proj" in /tmp/*) mkdir -p "$proj"; mount --move /home/.rdproj "$proj"; rmdir /home/.rdproj;; esac',
  'echo ready',
  `exec perl -e 'while (1) { sleep 1 if wait() < 0 }'`,
].join('\n');

/** A running namespace: the unshare process here, and the namespace's first process (its pid here). */
export class HostNamespace {
  private constructor(
    private readonly unshare: ChildProcess,
    readonly initPid: number,
  ) {}

  static async start(dir: string): Promise<HostNamespace> {
    const child = spawn(
      'unshare',
      [
        '--mount',
        '--pid',
        '--fork',
        '--mount-proc',
        '--kill-child',
        '--',
        'sh',
        '-c',
        NAMESPACE_SETUP,
        'rdhost',
        dir,
        REMOTE_HOME,
        PROJECT_ROOT,
      ],
      { stdio: ['ignore', 'pipe', 'pipe'] },
    );
    let out = '';
    child.stdout!.on('data', (d) => (out += String(d)));
    child.stderr!.on('data', (d) => (out += String(d)));
    const deadline = Date.now() + 10_000;
    while (!out.includes('ready')) {
      if (child.exitCode !== null || Date.now() > deadline) {
        child.kill('SIGKILL');
        throw new Error(`the test host's namespace did not start: ${out.trim()}`);
      }
      await new Promise((r) => setTimeout(r, 20));
    }
    const kids = readFileSync(`/proc/${child.pid}/task/${child.pid}/children`, 'utf8').trim().split(/\s+/);
    return new HostNamespace(child, Number(kids[0]));
  }

  /** argv run inside the namespace (its mounts, its pids), as root. */
  enter(argv: string[]): string[] {
    return ['nsenter', '-t', String(this.initPid), '-m', '-p', '--', ...argv];
  }

  /** A path of the host as this machine can reach it (through the namespace's own root). */
  viaRoot(path: string): string {
    return `/proc/${this.initPid}/root${path}`;
  }

  /** Ends every process of the host at once: the first process of a PID namespace takes them all. */
  async stop(): Promise<void> {
    for (const pid of [this.initPid, this.unshare.pid!]) {
      try {
        process.kill(pid, 'SIGKILL');
      } catch {
        /* gone */
      }
    }
    await waitForExit(this.initPid, 5000);
    await waitForExit(this.unshare.pid!, 5000);
  }
}
