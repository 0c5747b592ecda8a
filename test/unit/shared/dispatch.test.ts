import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { dispatch, dispatchWire } from '../../../src/main/engine/api';
import type { Engine } from '../../../src/main/engine/engine';
import { METHODS, REQUESTS, type Method } from '../../../src/shared/contract';
import { isFailure } from '../../../src/shared/errors';

const MARKER = 'ENGINE-TOUCHED-7f3a';

/** An engine that records any use and throws a marker, so "touched" is observable. */
function trapEngine(): { engine: Engine; touched: () => boolean } {
  let touched = false;
  const trap = () => {
    touched = true;
    throw new Error(MARKER);
  };
  const engine = new Proxy(
    {},
    {
      get: trap,
      has: trap,
      set: trap,
      ownKeys: trap,
      getOwnPropertyDescriptor: trap,
      apply: trap,
      deleteProperty: trap,
      defineProperty: trap,
      getPrototypeOf: trap,
    },
  ) as unknown as Engine;
  return { engine, touched: () => touched };
}

describe('dispatch validates before it touches the engine', () => {
  it('an unknown method is BAD_USAGE, the engine untouched', async () => {
    for (const m of [
      'nope',
      '',
      'constructor',
      '__proto__',
      'toString',
      'hasOwnProperty',
      'Up',
      'ps ',
      'x'.repeat(500),
    ]) {
      const t = trapEngine();
      const r = await dispatchWire(t.engine, m, {});
      expect(r, m).toMatchObject({ ok: false, code: 'BAD_USAGE' });
      expect(r.ok ? '' : r.message.length).toBeLessThan(120);
      expect(t.touched(), m).toBe(false);
    }
  });

  it('bad params are BAD_USAGE naming the field, the engine untouched (a bare {} as Engine is enough)', async () => {
    const cases: [Method, unknown, RegExp][] = [
      ['launch', { seat: 1 }, /seat/],
      ['launch', { seat: 'a@b', fresh: 'yes' }, /fresh/],
      ['send', { seat: 'a@b' }, /text/],
      ['send', { seat: 'a@b', text: 'hi', json: true }, /json|unrecognized/i],
      ['capture', { seat: 'a@b', lines: -1 }, /lines/],
      ['ps', { all: 'true' }, /all/],
      ['doctor', { x: 1 }, /x|unrecognized/i],
      ['down', [], /root|expected/i],
      ['up', 'rig.yaml', /root|expected/i],
    ];
    for (const [m, params, msg] of cases) {
      const r = await dispatch({} as Engine, m, params);
      expect(r.ok, `${m} ${JSON.stringify(params)}`).toBe(false);
      if (r.ok) continue;
      expect(r.code).toBe('BAD_USAGE');
      expect(r.message).toMatch(msg);
    }
  });

  it('an engine failure inside a method comes back as INTERNAL data, never a throw', async () => {
    const t = trapEngine();
    const r = await dispatch(t.engine, 'ps', {});
    expect(t.touched()).toBe(true);
    expect(r).toMatchObject({ ok: false, code: 'INTERNAL' });
    expect(r.ok ? '' : r.message).toContain(MARKER);
  });

  it('property: random JSON to every method never throws; the engine is reached only with valid params', async () => {
    const params = fc.oneof(
      fc.jsonValue(),
      fc.constant(undefined),
      fc.record(
        { seat: fc.oneof(fc.string(), fc.jsonValue()), text: fc.oneof(fc.string(), fc.jsonValue()) },
        { requiredKeys: [] },
      ),
      fc.record(
        {
          rig: fc.oneof(fc.string(), fc.jsonValue()),
          all: fc.oneof(fc.boolean(), fc.jsonValue()),
          lines: fc.oneof(fc.integer(), fc.jsonValue()),
          limit: fc.integer(),
          afterSeq: fc.integer(),
        },
        { requiredKeys: [] },
      ),
      // Absolute paths under a folder that does not exist, so `up` never reads a real file.
      fc.record({ spec: fc.string({ minLength: 1 }).map((s) => `/nonexistent-rigdesk-unit/${s}`) }),
    );
    await fc.assert(
      fc.asyncProperty(fc.constantFrom(...METHODS, 'nope', '__proto__'), params, async (method, p) => {
        const t = trapEngine();
        const r = await dispatchWire(t.engine, method, p);
        expect(isFailure(r) || r.ok === true).toBe(true);
        const valid = (METHODS as string[]).includes(method) && REQUESTS[method as Method].safeParse(p ?? {}).success;
        if (t.touched()) {
          expect(valid).toBe(true);
          expect(r).toMatchObject({ ok: false, code: 'INTERNAL' });
        }
        if (!valid) expect(r).toMatchObject({ ok: false, code: 'BAD_USAGE' });
      }),
      { numRuns: 1000 },
    );
  });
});
