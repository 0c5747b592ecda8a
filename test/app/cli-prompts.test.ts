import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { RigWorld, shellRigYaml } from '../support/rig';

let w: RigWorld;
beforeAll(async () => {
  w = new RigWorld();
  const up = await w.cli(['up', w.spec('r.yaml', shellRigYaml('r', ['sh'])), '--json']);
  expect(up.code, up.stderr).toBe(0);
}, 60_000);
afterAll(() => w?.cleanup());

describe('rigdesk prompts and rigdesk answer', () => {
  it('prompts lists what waits for a person, and says so when nothing does', async () => {
    const r = await w.cli(['prompts']);
    expect(r.code, r.stdout + r.stderr).toBe(0);
    expect(r.stdout.trim(), r.stderr).toBe('(nothing waits for you)');
    const j = await w.cli(['prompts', '--json']);
    expect(j.json, j.stdout + j.stderr).toEqual({ ok: true, prompts: [] });
    expect((await w.cli(['prompts', '--rig', 'ghost', '--json'])).json).toMatchObject({
      ok: false,
      code: 'RIG_NOT_FOUND',
    });
  });

  it('answer refuses a bad choice, a seat whose runtime has no prompts to answer, and types nothing', async () => {
    const before = w.tmux.capture('sh@r');
    const bad = await w.cli(['answer', 'sh@r', 'maybe']);
    expect(bad.code).toBe(2);
    expect(bad.stderr).toMatch(/approve, allow-always, deny, an option number or other/);
    const shell = await w.cli(['answer', 'sh@r', 'approve', '--json']);
    expect(shell.json).toMatchObject({ ok: false, code: 'DECISION_CHOICE_INVALID' });
    expect(shell.code).not.toBe(0);
    expect(w.tmux.capture('sh@r')).toBe(before);
    const ev = await w.cli(['events', '--seat', 'sh@r', '--json']);
    expect(ev.json.events.map((e: { kind: string }) => e.kind)).toContain('seat.prompt_answer_refused');
  });
});
