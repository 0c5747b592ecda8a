import { execFileSync } from 'node:child_process';
import os from 'node:os';

/** The machine a bench ran on, written beside its figures: these runs compare only within one machine. */
export function machineFacts() {
  return {
    cpuModel: os.cpus()[0]?.model ?? 'unknown',
    cores: os.cpus().length,
    totalMemBytes: os.totalmem(),
    platform: `${os.platform()} ${os.release()} ${os.arch()}`,
    node: process.version,
    tmux: tmuxVersion(),
    loadavgAtStart: os.loadavg(),
  };
}

function tmuxVersion(): string {
  try {
    return execFileSync('tmux', ['-V'], { encoding: 'utf8' }).trim();
  } catch {
    return 'tmux: not found';
  }
}
