import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { RigWorld, shellRigYaml } from '../support/rig';

/**
 * A slow command's progress on stderr (real CLI process, real tmux): each seat's launch and its
 * end as the engine records them, while the command runs; the answer on stdout is unchanged.
 * A child process's stderr is no terminal, so `--progress` asks for it here.
 */
describe('rigdesk up/down --progress (real tmux, real CLI process)', () => {
  let w: RigWorld;
  beforeEach(() => {
    w = new RigWorld();
  });
  afterEach(() => w.cleanup());

  it('up prints each seat as it launches, down each session as it goes; stdout is the same answer', async () => {
    const spec = w.spec('rig.yaml', shellRigYaml('demo', ['lead', 'worker']));
    const up = await w.cli(['up', spec, '--progress']);
    expect(up.code, up.stderr).toBe(0);
    const upLines = up.stderr.trim().split('\n');
    expect(upLines).toEqual(
      expect.arrayContaining([
        'demo: rig brought up',
        expect.stringMatching(/^lead@demo: launched \(fresh\) in pane %\d+$/),
        expect.stringMatching(/^worker@demo: launched \(fresh\) in pane %\d+$/),
      ]),
    );
    expect(up.stdout).toMatch(/^lead@demo: launched \(%\d+; attach: /m);

    const down = await w.cli(['down', 'demo', '--progress', '--json']);
    expect(down.code, down.stderr).toBe(0);
    expect(down.json.seats.map((s: { outcome: string }) => s.outcome)).toEqual(['removed', 'removed']);
    const rows = down.stderr
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l).progress);
    // Seats are stopped side by side: each session's end is printed, in the order they ended.
    expect(
      rows
        .filter((r) => r.kind === 'seat.kill')
        .map((r) => r.seat)
        .sort(),
    ).toEqual(['lead@demo', 'worker@demo']);
    expect(rows.every((r) => r.rig === 'demo')).toBe(true);

    // Without a terminal on stderr and without --progress: nothing but the answer.
    const quiet = await w.cli(['up', spec]);
    expect(quiet.code, quiet.stderr).toBe(0);
    expect(quiet.stderr).toBe('');
  });
});
