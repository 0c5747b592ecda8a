import { describe, expect, it } from 'vitest';
import { RESTORE_REQUESTS } from '../../src/shared/contract/restore';
import { RESTORE_COMMANDS } from '../../src/cli/commands/restore';
import { parseArgs } from '../../src/cli/args';
import type { EngineCall } from '../../src/shared/contract';
import { fail } from '../../src/shared/errors';

/** Issue 5's requests: strict objects, and the CLI's argv -> request for each command. */
const VALID: { [M in keyof typeof RESTORE_REQUESTS]: Record<string, unknown> } = {
  snapshot: { rig: 'crew' },
  snapshots: { rig: 'crew', limit: 5 },
  restore: { target: 'crew', plan: true },
  decisions: { rig: 'crew', all: true },
  decide: { id: 3, choice: 'fresh', reason: 'lost' },
  restart: { seat: 'a@crew', keepConversation: true, plan: true },
  fresh: { seat: 'a@crew', reason: 'start over', plan: true },
  fork: { seat: 'a@crew', as: 'b', plan: true },
  reconcile: {},
};

describe('restore contract', () => {
  for (const [m, v] of Object.entries(VALID)) {
    it(`${m}: accepts a valid request and rejects unknown keys`, () => {
      const s = RESTORE_REQUESTS[m as keyof typeof RESTORE_REQUESTS];
      expect(s.safeParse(v).success).toBe(true);
      expect(s.safeParse({ ...v, bogus: 1 }).success).toBe(false);
    });
  }
  it('a decision answer needs a known choice and a non-empty reason', () => {
    expect(RESTORE_REQUESTS.decide.safeParse({ id: 1, choice: 'guess', reason: 'x' }).success).toBe(false);
    expect(RESTORE_REQUESTS.decide.safeParse({ id: 1, choice: 'resume', reason: '  ' }).success).toBe(false);
  });
  it('restart only exists with keepConversation: true', () => {
    expect(RESTORE_REQUESTS.restart.safeParse({ seat: 'a@crew', keepConversation: false }).success).toBe(false);
  });
  it('the CLI turns argv into those requests', async () => {
    // The prepared request is run against a call that records what it would send and sends nothing.
    const req = async (argv: string[]) => {
      const a = parseArgs(argv);
      const r = RESTORE_COMMANDS[a.command!]!.toRequest(a);
      if (!r.ok) return r;
      let sent: { method: string; params: unknown } | undefined;
      const record: EngineCall = async (method, params) => {
        sent = { method, params };
        return fail('INTERNAL', 'not sent: this test only reads the request');
      };
      await r.prepared.run(record);
      return { ok: true, ...sent };
    };
    expect(await req(['restore', 'crew', '--plan'])).toMatchObject({
      ok: true,
      method: 'restore',
      params: { target: 'crew', plan: true },
    });
    expect(await req(['decide', '4', 'resume', '--reason', 'it is there'])).toMatchObject({
      ok: true,
      params: { id: 4, choice: 'resume', reason: 'it is there' },
    });
    expect(await req(['decide', '4', 'resume'])).toMatchObject({ ok: false, code: 'BAD_USAGE' });
    expect(await req(['decide', '4', 'guess', '--reason', 'x'])).toMatchObject({ ok: false, code: 'BAD_USAGE' });
    expect(await req(['restart', 'a@crew'])).toMatchObject({ ok: false, code: 'BAD_USAGE' });
    expect(await req(['fresh', 'a@crew', '--reason=why', '--plan'])).toMatchObject({
      ok: true,
      params: { seat: 'a@crew', reason: 'why', plan: true },
    });
    expect(await req(['fork', 'a@crew', '--as', 'b'])).toMatchObject({
      ok: true,
      method: 'fork',
      params: { seat: 'a@crew', as: 'b' },
    });
    expect(await req(['fork', 'a@crew', '--as=b', '--plan'])).toMatchObject({
      ok: true,
      params: { seat: 'a@crew', as: 'b', plan: true },
    });
    expect(await req(['fork', 'a@crew'])).toMatchObject({ ok: false, code: 'BAD_USAGE' });
    for (const [m, v] of Object.entries(VALID))
      expect(RESTORE_REQUESTS[m as keyof typeof RESTORE_REQUESTS].safeParse(v).success).toBe(true);
  });
});
