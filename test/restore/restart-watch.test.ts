/**
 * Restart respawns the pane in place; tmux 3.3a's server crashes (every seat with it) when that
 * happens while a control-mode client is behind on the pane's output (tmux #5499). The activity
 * monitor's control client (used where a pane's output is already piped by somebody else, and for
 * seats on hosts) detaches first. STAND-IN Claude seat; the flood is written to the pane's tty.
 */
import { spawn } from 'node:child_process';
import { existsSync, mkdirSync, realpathSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { ActivityMonitor } from '../../src/main/engine/activity/monitor';
import { dispatch } from '../../src/main/engine/api';
import { RigWorld } from '../support/rig';
import { waitFor } from '../support/tmux';
import { standInRigYaml, standInTranscript, writeClaudeStandIn } from './standin-claude';

describe('restart while the activity monitor watches the pane by control client', () => {
  let w: RigWorld;
  let m: ActivityMonitor | undefined;
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
    m?.stop();
    for (const p of pids.splice(0)) {
      try {
        process.kill(p, 'SIGKILL');
      } catch {
        /* gone */
      }
    }
    w.cleanup();
  });

  it('restarting a flooding seat leaves the tmux server up; the watch comes back after', async () => {
    // Somebody else pipes this pane's output: the monitor watches it with a control client.
    w.tmux.run(['pipe-pane', '-t', 'a@crew', 'cat > /dev/null']);
    const e = w.engine();
    m = new ActivityMonitor(e.ports, { fallbackMs: 60_000 });
    await m.start();
    await waitFor(() => m!.watcherPids().length === 1, { what: 'a control client on the seat' });
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
      await waitFor(() => m!.watcherPids().length === 1, { what: 'the control client back after the restart' });
    }
  });
});
