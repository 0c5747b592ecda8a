import fc from 'fast-check';
import { stringify } from 'yaml';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ERROR_CODES } from '../../src/shared/errors';
import { dispatch } from '../../src/main/engine/api';
import type { Engine } from '../../src/main/engine/engine';
import { RigWorld } from '../support/rig';

/**
 * Random specs and seat names through the real engine (real tmux, real SQLite): nothing comes out
 * but a structured error or a valid launch, and nothing throws.
 */
describe('random input through the engine', () => {
  let w: RigWorld;
  let engine: Engine;
  beforeAll(() => {
    w = new RigWorld();
    engine = w.engine();
  });
  afterAll(() => w.cleanup());

  const validName = fc.stringMatching(/^[A-Za-z0-9][A-Za-z0-9_-]{0,10}$/);
  const badName = fc.oneof(
    fc.constantFrom('', 'le:ad', 'a.b', '$0', '%1', 'a b', 'a@b', ';rm', '-x', 'x'.repeat(49), 'ü', '#{pid}', '\u0000'),
    fc.string({ maxLength: 12 }),
  );
  const nameish = fc.oneof({ weight: 30, arbitrary: validName }, { weight: 1, arbitrary: badName });
  const member = fc.record(
    {
      id: nameish,
      runtime: fc.oneof(
        { weight: 12, arbitrary: fc.constant('shell') },
        { weight: 1, arbitrary: fc.constantFrom('claude-code', 'nope', '', 42 as unknown as string) },
      ),
      cwd: fc.oneof(
        { weight: 12, arbitrary: fc.constant('.') },
        { weight: 1, arbitrary: fc.constantFrom('./missing', '~', '$NOPE_UNSET_VAR', '', 7 as unknown as string) },
      ),
      command: fc.option(fc.constantFrom('sh', 'bash'), { nil: undefined }),
      args: fc.oneof(
        { weight: 12, arbitrary: fc.constant(['-c', 'sleep 30']) },
        { weight: 1, arbitrary: fc.constantFrom([], 'bad' as unknown as string[]) },
      ),
    },
    { requiredKeys: ['id', 'runtime', 'cwd'] },
  );
  const spec = fc.record({
    name: nameish,
    pods: fc.array(fc.record({ id: nameish, members: fc.array(member, { minLength: 1, maxLength: 3 }) }), {
      minLength: 1,
      maxLength: 2,
    }),
  });

  it('up of a random spec returns ok with launched seats or a structured failure', async () => {
    let n = 0;
    let launched = 0;
    await fc.assert(
      fc.asyncProperty(
        fc.oneof(
          { weight: 5, arbitrary: spec.map((s) => stringify(s)) },
          { weight: 1, arbitrary: fc.string({ maxLength: 200 }) },
        ),
        async (text) => {
          const file = w.spec(`p${n++}.yaml`, text);
          const r = await dispatch(engine, 'up', { spec: file });
          if (r.ok) {
            const seats = r.seats as { seat: string; outcome: string }[];
            for (const s of seats) {
              expect(s.seat).toMatch(/^[A-Za-z0-9][A-Za-z0-9_-]{0,47}@[A-Za-z0-9][A-Za-z0-9_-]{0,47}$/);
              expect(['launched', 'already_running']).toContain(s.outcome);
            }
            // Every launched seat is a real tagged session on Rigdesk's server.
            const tagged = new Set(w.sessions().map((x) => x.seat));
            for (const s of seats) expect(tagged.has(s.seat)).toBe(true);
            launched += seats.length;
            await dispatch(engine, 'down', { rig: r.rig });
          } else {
            expect(ERROR_CODES).toContain(r.code);
            expect(r.message.length).toBeGreaterThan(0);
          }
        },
      ),
      { numRuns: 60 },
    );
    // The generator must reach the launch path, or this property says nothing about it.
    expect(launched).toBeGreaterThan(0);
  });

  it('random seat names to every seat command give a structured failure, never a throw or a session', async () => {
    const before = w.sessions().length;
    await fc.assert(
      fc.asyncProperty(
        fc.oneof(nameish, fc.string({ maxLength: 40 }), fc.constant(undefined), fc.integer()),
        fc.constantFrom('launch', 'stop', 'send', 'capture', 'attach'),
        async (seat, method) => {
          const r = await dispatch(engine, method, method === 'send' ? { seat, text: 'hi' } : { seat });
          expect(r.ok).toBe(false);
          if (!r.ok) expect(['SEAT_NAME_INVALID', 'SEAT_NOT_FOUND', 'BAD_USAGE']).toContain(r.code);
        },
      ),
      { numRuns: 200 },
    );
    expect(w.sessions().length).toBe(before);
  });
});
