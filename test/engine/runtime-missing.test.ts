import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { RigWorld } from '../support/rig';

describe("a runtime whose CLI is not on the seat's PATH", () => {
  let w: RigWorld;
  beforeEach(() => {
    w = new RigWorld();
  });
  afterEach(() => w.cleanup());

  for (const [runtime, install] of [
    ['claude-code', '@anthropic-ai/claude-code'],
    ['codex', '@openai/codex'],
    ['pi', '@mariozechner/pi-coding-agent'],
  ]) {
    it(`${runtime}: launch fails with RUNTIME_NOT_INSTALLED, says how to install it, and creates nothing`, async () => {
      const spec = w.spec(
        'rig.yaml',
        `name: demo\npods:\n  - id: p\n    members:\n      - { id: lead, runtime: ${runtime}, cwd: ., env: { PATH: /nonexistent-bin } }\n`,
      );
      const up = await w.cli(['up', spec, '--json']);
      expect(up.code).toBe(1);
      expect(up.json.evidence.seats[0]).toMatchObject({ outcome: 'refused', code: 'RUNTIME_NOT_INSTALLED' });
      const launch = await w.cli(['launch', 'lead@demo', '--json']);
      expect(launch.json).toMatchObject({ ok: false, code: 'RUNTIME_NOT_INSTALLED' });
      expect(launch.json.hint).toContain(install);
      expect(w.sessions()).toEqual([]);
      const ev = await w.cli(['events', '--seat', 'lead@demo', '--json']);
      expect(ev.json.events.map((e: { kind: string }) => e.kind)).toEqual([
        'seat.launch_refused',
        'seat.launch_refused',
      ]);
    });
  }
});
