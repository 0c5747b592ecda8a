/**
 * tmux 3.3a's server crashes, every seat with it, when a pane is respawned while a control-mode
 * client is behind on its output (see activity/control.ts). The engine's held client is attached
 * with pane output off (`-f no-output`), so it is never behind on anything: restarting a seat that
 * floods, with the held client attached to that very session, leaves the server up. STAND-IN
 * Claude seat (restart needs a conversation to keep); the flood is written to the pane's tty.
 */
import { spawn } from 'node:child_process';
import { existsSync, mkdirSync, realpathSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { dispatch } from '../../src/main/engine/api';
import { RigWorld } from '../support/rig';
import { waitFor } from '../support/tmux';
import { standInRigYaml, standInTranscript, writeClaudeStandIn } from '../restore/standin-claude';

describe('held tmux client attached while a flooding seat restarts', () => {
  let w: RigWorld;
  const pids: number[] = [];
  beforeEach(async () => {
    w = new RigWorld();
    mkdirSync(join(w.root, 'work'), { recursive: true });
    const work = realpathSync(join(w.root, 'work'));
    const bin = writeClaudeStandIn(join(w.root, 'bin'));
    const up = await w.cli(['up', w.spec('rig.yaml', standInRigYaml('crew', bin, w.root, ['a'], [])), '--json']);
    expect(up.code, up.stdout + up.stderr).toBe(0);
    const id = up.json.seats.find((s: { seat: string }) => s.seat === 'a@crew').launched.conversationId;
    await waitFor(() => existsSync(standInTranscript(join(w.root, 'cfg-a'), work, id)), { what: 'transcript' });
  });
  afterEach(() => {
    for (const p of pids.splice(0)) {
      try {
        process.kill(p, 'SIGKILL');
      } catch {
        /* gone */
      }
    }
    w.cleanup();
  });

  it('three restarts of a flooding seat: the server survives, the held client stays attached', async () => {
    const e = w.engine();
    const me = await e.own.run(['display-message', '-p', '#{session_name} #{client_flags}']);
    expect(me.stdout).toMatch(/^a@crew .*no-output/);
    const serverPid = w.tmux.run(['display-message', '-p', '#{pid}']).trim();
    const tty = w.tmux.run(['display-message', '-p', '-t', 'a@crew', '#{pane_tty}']).trim();
    for (let i = 0; i < 3; i++) {
      const flood = spawn('sh', ['-c', `exec yes rigdesk-flood-line-of-some-length > ${tty}`], { stdio: 'ignore' });
      pids.push(flood.pid!);
      await new Promise((r) => setTimeout(r, 300));
      const r = await dispatch(e, 'restart', { seat: 'a@crew', keepConversation: true });
      flood.kill('SIGKILL');
      expect(r.ok, JSON.stringify(r)).toBe(true);
      await new Promise((res) => setTimeout(res, 300));
      expect(w.tmux.tryRun(['display-message', '-p', '#{pid}']).out.trim()).toBe(serverPid);
      const held = await e.own.run(['display-message', '-p', '#{pid}']);
      expect(held.stdout.trim()).toBe(serverPid);
    }
    // One held client the whole time: it never had to reconnect.
    expect(e.deps.tmux.spawns).toBe(1);
  });
});
