import { readFileSync } from 'node:fs';
import { afterEach, describe, expect, it } from 'vitest';
import { RigWorld } from '../support/rig';

/**
 * Issue 32: a tmux server on Rigdesk's socket that accepts and never answers locked a person out
 * of every seat with nothing naming the process to end. A SIGSTOPped server is such a server: doctor
 * names it with its pid within 5 s, and `doctor --fix` ends exactly it, never a stopped server of
 * another socket.
 */
function serverPid(w: RigWorld): number {
  w.tmux.run(['new-session', '-d', '-s', 'held', 'sleep 600']);
  return Number(w.tmux.run(['display-message', '-p', '-t', 'held', '#{pid}']).trim());
}

/** Running or stopped; a zombie (ended, not yet reaped by its parent, here often pid 1) is not. */
function alive(pid: number): boolean {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    return stat.slice(stat.lastIndexOf(')') + 2)[0] !== 'Z';
  } catch {
    return false;
  }
}

interface Check {
  check: string;
  ok: boolean;
  detail: string;
  hint?: string;
}

function checksOf(stdout: string): Check[] {
  const r = JSON.parse(stdout) as { checks?: Check[]; evidence?: { checks: Check[] } };
  return r.checks ?? r.evidence?.checks ?? [];
}

describe('a stuck tmux server on Rigdesk’s socket', () => {
  const worlds: RigWorld[] = [];
  const pids: number[] = [];
  afterEach(() => {
    // By pid: a stopped server would never answer kill-server.
    for (const pid of pids.splice(0)) {
      try {
        process.kill(pid, 'SIGKILL');
      } catch {
        /* gone */
      }
    }
    for (const w of worlds.splice(0)) w.cleanup();
  });

  it('is named by doctor with its pid within 5 s, and doctor --fix ends exactly it, not a stopped server of another socket', async () => {
    const mine = new RigWorld();
    const other = new RigWorld();
    worlds.push(mine, other);
    const stuckPid = serverPid(mine);
    const otherPid = serverPid(other);
    pids.push(stuckPid, otherPid);
    process.kill(stuckPid, 'SIGSTOP');
    process.kill(otherPid, 'SIGSTOP');

    const t0 = Date.now();
    const seen = await mine.cli(['doctor', '--json']);
    const took = Date.now() - t0;
    expect(seen.code, seen.stdout + seen.stderr).toBe(1);
    const named = checksOf(seen.stdout).find((c) => c.check === 'tmux server');
    expect(named?.ok).toBe(false);
    expect(named?.detail).toContain('TMUX_SERVER_STUCK');
    expect(named?.detail).toContain(`pid ${stuckPid}`);
    expect(named?.hint).toContain('doctor --fix');
    expect(took).toBeLessThan(5_000);

    const fixed = await mine.cli(['doctor', '--fix', '--json']);
    const ended = checksOf(fixed.stdout).find((c) => c.check === 'tmux server' && c.detail.includes('ended'));
    expect(ended?.detail, fixed.stdout + fixed.stderr).toContain(`pid ${stuckPid}`);
    expect(alive(stuckPid)).toBe(false);
    expect(alive(otherPid)).toBe(true);

    // The socket works again: a seat can be started on it.
    const up = await mine.cli(['launch', 'lead@solo', '--runtime', 'shell', '--json']);
    const ps = await mine.cli(['ps', '--json']);
    expect(ps.code, `${up.stdout}${up.stderr}\n${ps.stdout}${ps.stderr}`).toBe(0);
  }, 60_000);
});
