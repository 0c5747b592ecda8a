import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { probeOwnServer, watchOwnServer } from '../../src/main/engine/services/stuck-server';
import { RigWorld } from '../support/rig';

/**
 * Issue 37 (a window left open costs close to nothing) beside issue 32 (a stuck server is named
 * within 5 s): the resting window's look at Rigdesk's tmux server goes through the engine's held
 * control client, with no process, while that client answers; only when it does not does a
 * process of its own probe the server, the one look that can tell a stuck server.
 */
describe("a resting window's look at Rigdesk's tmux server", () => {
  const worlds: RigWorld[] = [];
  const pids: number[] = [];
  afterEach(() => {
    for (const pid of pids.splice(0)) {
      try {
        process.kill(pid, 'SIGKILL');
      } catch {
        /* gone */
      }
    }
    for (const w of worlds.splice(0)) w.cleanup();
  });

  it('asks the held client and starts no process while it answers; a stopped server is still named by the process probe', async () => {
    const w = new RigWorld();
    worlds.push(w);
    w.tmux.run(['new-session', '-d', '-s', 'held', 'sleep 600']);
    const serverPid = Number(w.tmux.run(['display-message', '-p', '-t', 'held', '#{pid}']).trim());
    pids.push(serverPid);
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

    process.kill(serverPid, 'SIGSTOP');
    expect(await watchOwnServer(e)).toMatchObject({ code: 'TMUX_SERVER_STUCK', pids: [serverPid] });
    process.kill(serverPid, 'SIGKILL');
    await e.close(500);
  }, 30_000);
});
