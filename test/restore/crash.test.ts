/**
 * SIGKILL the engine at each step of a restore, run restore again, and the rig ends exactly as an
 * uninterrupted restore leaves it: the same seats running (one session each), the same open
 * decisions, no pane without a live row, no live row without its pane. STAND-IN Claude seats.
 */
import { spawn } from 'node:child_process';
import { existsSync, mkdirSync, realpathSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { RIGDESK_BIN, RigWorld } from '../support/rig';
import { waitFor } from '../support/tmux';
import { standInRigYaml, standInTranscript, writeClaudeStandIn } from './standin-claude';

const POINTS = process.env.RD_POINTS
  ? process.env.RD_POINTS.split(',')
  : [
      'restore.after_snapshot',
      'restore.after_plan',
      'fence.after_reserved',
      'fence.after_helper_invoked',
      'fence.after_created',
      'restore.after_launch',
      'restore.before_rollback',
      'restore.after_rollback_kill',
      'restore.before_finish',
    ];

async function worldAfterReboot(): Promise<RigWorld> {
  const w = new RigWorld();
  mkdirSync(join(w.root, 'work'), { recursive: true });
  const work = realpathSync(join(w.root, 'work'));
  const bin = writeClaudeStandIn(join(w.root, 'bin'));
  const spec = w.spec('rig.yaml', standInRigYaml('crew', bin, w.root, ['a', 'b', 'c'], ['sh']));
  const up = await w.cli(['up', spec, '--json']);
  expect(up.code, up.stdout + up.stderr).toBe(0);
  const id = (m: string) =>
    up.json.seats.find((s: { seat: string }) => s.seat === `${m}@crew`).launched.conversationId as string;
  for (const m of ['a', 'b', 'c'])
    await waitFor(() => existsSync(standInTranscript(join(w.root, `cfg-${m}`), work, id(m))), { what: 'transcript' });
  w.tmux.kill();
  rmSync(standInTranscript(join(w.root, 'cfg-b'), work, id('b')));
  writeFileSync(join(w.root, 'cfg-c', `missing-${id('c')}`), '');
  return w;
}

async function killAt(w: RigWorld, point: string): Promise<boolean> {
  const child = spawn(process.execPath, [RIGDESK_BIN, 'restore', 'crew'], {
    env: { ...w.env, RIGDESK_TEST_FAULT: `${point}:pause` },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let err = '';
  child.stderr.on('data', (d: Buffer) => (err += d.toString()));
  const exited = new Promise<number | null>((r) => child.once('exit', (c) => r(c)));
  const reached = await Promise.race([
    waitFor(() => err.includes(`paused at ${point}`), { what: point, timeoutMs: 30_000 }).then(() => true),
    exited.then(() => false),
  ]);
  if (reached) process.kill(child.pid!, 'SIGKILL');
  await exited;
  return reached;
}

async function endState(w: RigWorld) {
  const r = await w.cli(['ps', '--json']);
  const running = (r.json.seats as { seat: string; state: string }[])
    .filter((s) => s.state === 'running')
    .map((s) => s.seat)
    .sort();
  const decisions = ((await w.cli(['decisions', '--json'])).json.decisions as { seat: string; reason: string }[])
    .map((d) => `${d.seat}:${d.reason}`)
    .sort();
  const sessions = w
    .sessions()
    .map((s) => s.seat)
    .sort();
  const e = w.engine();
  const live = e.store.sessions
    .allLive()
    .map((s) => s.seat)
    .sort();
  const panes = w.tmux
    .tryRun(['list-panes', '-a', '-F', '#{pane_id}'])
    .out.trim()
    .split('\n')
    .filter((l) => l.startsWith('%'))
    .sort();
  const livePanes = e.store.sessions
    .allLive()
    .map((s) => s.paneId)
    .sort();
  const active = e.store.reservations.allActive().length;
  return {
    running,
    decisions,
    sessions,
    live,
    panesMatchRows: JSON.stringify(panes) === JSON.stringify(livePanes),
    active,
  };
}

describe('restore survives SIGKILL at every step (stand-in Claude seats)', () => {
  const worlds: RigWorld[] = [];
  afterEach(() => {
    for (const w of worlds.splice(0)) w.cleanup();
  });

  it('an uninterrupted restore, and one killed at each step then run again, end in the same state', async () => {
    const ref = await worldAfterReboot();
    worlds.push(ref);
    expect((await ref.cli(['restore', 'crew'])).code).toBe(0);
    const want = await endState(ref);
    expect(want).toEqual({
      running: ['a@crew', 'sh@crew'],
      decisions: ['b@crew:transcript_missing', 'c@crew:conversation_missing_reported'],
      sessions: ['a@crew', 'sh@crew'],
      live: ['a@crew', 'sh@crew'],
      panesMatchRows: true,
      active: 0,
    });
    ref.cleanup();
    worlds.splice(0);

    for (const point of POINTS) {
      const w = await worldAfterReboot();
      worlds.push(w);
      const reached = await killAt(w, point);
      expect(reached, `fault point ${point} was reached`).toBe(true);
      const again = await w.cli(['restore', 'crew', '--json']);
      expect(again.code, `${point}: ${again.stdout}${again.stderr}`).toBe(0);
      if (process.env.RD_POINTS) console.log(JSON.stringify(again.json.seats, null, 1));
      expect(again.json.outcome, `${point}: ${JSON.stringify(again.json.seats)}`).toBe('partially_restored');
      expect({ point, ...(await endState(w)) }).toEqual({ point, ...want });
      w.cleanup();
      worlds.splice(0);
    }
  }, 300_000);
});
