import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { probeOwnServer, watchOwnServer } from '../../src/main/engine/services/stuck-server';
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

  // Issue 37 beside issue 32: a resting window's look goes through the engine's held control client,
  // with no process, while it answers; only a miss asks a process, the one look that can tell stuck.
  it('a resting window asks the held client and starts no process while it answers; a stopped server is still named', async () => {
    const w = new RigWorld();
    worlds.push(w);
    const pid = serverPid(w);
    pids.push(pid);
    const e = w.engine();
    expect((await e.own.run(['list-sessions'])).code).toBe(0);
    expect(await e.own.heldAnswers(1_000), 'the held client is connected').toBe(true);

    // Forced fault: no tmux on the engine's PATH, so a process probe cannot run and reads stuck.
    const path = e.deps.env.PATH;
    e.deps.env.PATH = mkdtempSync(join(tmpdir(), 'rd-no-tmux-'));
    expect((await probeOwnServer(e))?.code, 'the fault is real: a process probe fails').toBe('TMUX_SERVER_STUCK');
    expect(await watchOwnServer(e), 'the held client answered: no process, no verdict').toBeUndefined();
    expect(e.stuckSeen).toBeUndefined();
    e.deps.env.PATH = path;

    process.kill(pid, 'SIGSTOP');
    expect(await watchOwnServer(e)).toMatchObject({ code: 'TMUX_SERVER_STUCK', pids: [pid] });
    process.kill(pid, 'SIGKILL');
    await e.close(500);
  }, 30_000);
});
