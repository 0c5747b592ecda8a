import { execFile, execFileSync, spawn } from 'node:child_process';
import { constants, openSync, rmSync } from 'node:fs';
import { Socket } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { randomBytes } from 'node:crypto';
import { performance } from 'node:perf_hooks';
import { spawn as spawnPty } from 'node-pty';
import { cleanTmuxEnv } from '../../support/tmux';

/**
 * Why the live terminal is a tmux attach client and not a control-mode client, and why the
 * activity watch reads a pipe: the time for `seq 1 N` to finish in a pane (tmux must parse every
 * byte either way) with no client, with an attach client (tmux sends screen updates), with a
 * control-mode client (tmux sends every byte as an escaped `%output` line) and with the pane's
 * output piped (`pipe-pane` into a fifo this process reads, as the activity watch does). Each run
 * gets its own server, killed after.
 */
export type ClientKind = 'none' | 'attach' | 'control' | 'pipe';

export async function paneFloodMs(kind: ClientKind, lines: number): Promise<{ ms: number; clientBytes: number }> {
  const sock = `rdbench-cl-${process.pid}-${randomBytes(4).toString('hex')}`;
  const env = cleanTmuxEnv({ TERM: 'xterm-256color' });
  const tmux = (args: string[]) =>
    execFileSync('tmux', ['-L', sock, '-f', '/dev/null', ...args], { encoding: 'utf8', env });
  tmux(['new-session', '-d', '-s', 'a', '-x', '120', '-y', '40', 'bash --noprofile --norc']);
  let clientBytes = 0;
  let stop: () => void = () => undefined;
  try {
    await sleep(300);
    if (kind === 'attach') {
      const p = spawnPty('tmux', ['-L', sock, '-f', '/dev/null', 'attach', '-t', 'a', '-f', 'ignore-size'], {
        name: 'xterm-256color',
        cols: 120,
        rows: 40,
        env: env as Record<string, string>,
        encoding: null,
      });
      p.onData((d) => void (clientBytes += d.length));
      stop = () => p.kill();
    } else if (kind === 'control') {
      const p = spawn('tmux', ['-L', sock, '-f', '/dev/null', '-C', 'attach', '-t', 'a'], {
        env,
        stdio: ['pipe', 'pipe', 'ignore'],
      });
      p.stdout.on('data', (d: Buffer) => void (clientBytes += d.length));
      stop = () => void p.kill();
    } else if (kind === 'pipe') {
      const fifo = join(tmpdir(), `${sock}.fifo`);
      execFileSync('mkfifo', ['-m', '600', fifo]);
      const s = new Socket({
        fd: openSync(fifo, constants.O_RDWR | constants.O_NONBLOCK),
        readable: true,
        writable: false,
      });
      s.on('data', (d: Buffer) => void (clientBytes += d.length));
      tmux(['pipe-pane', '-O', '-t', 'a', `exec cat >${fifo}`]);
      stop = () => {
        s.destroy();
        rmSync(fifo, { force: true });
      };
    }
    await sleep(400);
    const done = new Promise<number>((res) =>
      execFile('tmux', ['-L', sock, 'wait-for', 'flood-done'], { env }, () => res(performance.now())),
    );
    const t0 = performance.now();
    tmux(['send-keys', '-t', 'a', `seq 1 ${lines}; tmux wait-for -S flood-done`, 'Enter']);
    return { ms: (await done) - t0, clientBytes };
  } finally {
    stop();
    try {
      tmux(['kill-server']);
    } catch {
      /* already gone */
    }
    // tmux 3.3a leaves the socket file of a killed server behind.
    rmSync(join(process.env.TMUX_TMPDIR || '/tmp', `tmux-${process.getuid?.() ?? 0}`, sock), { force: true });
  }
}

export const sleep = (ms: number) => new Promise<void>((r) => setTimeout(r, ms));

export function median(xs: readonly number[]): number {
  const s = [...xs].sort((a, b) => a - b);
  return s.length ? s[Math.floor(s.length / 2)]! : NaN;
}
