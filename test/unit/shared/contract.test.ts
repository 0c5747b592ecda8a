import { describe, expect, it } from 'vitest';
import { ENGINE_REQUESTS, REQUESTS, rpcRequest } from '../../../src/shared/contract';

// The engine core's requests; other domains (restore, activity, app) test their own.
type Method = keyof typeof ENGINE_REQUESTS;
const METHODS = Object.keys(ENGINE_REQUESTS) as Method[];

/** One valid request per method, with every optional field present. */
const VALID: Record<Method, Record<string, unknown>> = {
  up: { spec: '/w/rig.yaml' },
  ps: { rig: 'demo', all: true },
  launch: { seat: 'lead@demo', fresh: true },
  stop: { seat: 'lead@demo' },
  down: { rig: 'demo' },
  send: { seat: 'lead@demo', text: 'hello', waitForIdle: 30, force: true, reason: 'the person asked', verify: true },
  capture: { seat: 'lead@demo', lines: 200 },
  attach: { seat: 'lead@demo' },
  doctor: {},
  events: { seat: 'lead@demo', rig: 'demo', afterSeq: 0, limit: 10 },
};

/** Values of the wrong type for each kind of field. */
const WRONG: Record<string, unknown[]> = {
  string: [1, true, null, {}, [], ['x']],
  boolean: ['true', 1, 0, null, {}],
  number: ['5', true, null, 1.5, -1, Number.NaN, Number.POSITIVE_INFINITY],
  seconds: ['5', true, null, -1, Number.NaN, Number.POSITIVE_INFINITY],
};
const KIND: Record<string, keyof typeof WRONG> = {
  spec: 'string',
  rig: 'string',
  seat: 'string',
  text: 'string',
  all: 'boolean',
  fresh: 'boolean',
  lines: 'number',
  afterSeq: 'number',
  limit: 'number',
  waitForIdle: 'seconds',
  force: 'boolean',
  reason: 'string',
  verify: 'boolean',
};

describe('the contract validates every request before an engine method runs', () => {
  it("covers exactly the engine core's methods", () => {
    expect([...METHODS].sort()).toEqual(Object.keys(VALID).sort());
  });

  for (const m of METHODS) {
    describe(m, () => {
      it('accepts a valid request', () => {
        expect(REQUESTS[m].safeParse(VALID[m]).success).toBe(true);
      });

      it('rejects unknown keys (strict objects)', () => {
        expect(REQUESTS[m].safeParse({ ...VALID[m], bogus: 1 }).success).toBe(false);
        expect(REQUESTS[m].safeParse({ ...VALID[m], json: true }).success).toBe(false);
        expect(
          REQUESTS[m].safeParse(
            JSON.parse(
              `{"__proto__": {"polluted": true}${Object.keys(VALID[m]).length ? ',' : ''}${JSON.stringify(VALID[m]).slice(1)}`,
            ),
          ).success,
        ).toBe(false);
        expect(({} as Record<string, unknown>).polluted).toBeUndefined();
      });

      it('rejects a non-object', () => {
        for (const v of [null, 'x', 1, [], [VALID[m]], true])
          expect(REQUESTS[m].safeParse(v).success, JSON.stringify(v)).toBe(false);
      });

      for (const key of Object.keys(VALID[m])) {
        it(`rejects ${key} of the wrong type`, () => {
          for (const bad of WRONG[KIND[key]!]!)
            expect(REQUESTS[m].safeParse({ ...VALID[m], [key]: bad }).success, `${key}=${String(bad)}`).toBe(false);
        });
      }
    });
  }

  it('required fields are required', () => {
    for (const [m, key] of [
      ['up', 'spec'],
      ['launch', 'seat'],
      ['stop', 'seat'],
      ['down', 'rig'],
      ['send', 'seat'],
      ['send', 'text'],
      ['capture', 'seat'],
      ['attach', 'seat'],
    ] as const) {
      const { [key]: _drop, ...rest } = VALID[m];
      expect(REQUESTS[m].safeParse(rest).success, `${m} without ${key}`).toBe(false);
    }
  });

  it('strings have bounds: empty seat refused, oversized text refused', () => {
    expect(REQUESTS.launch.safeParse({ seat: '' }).success).toBe(false);
    expect(REQUESTS.launch.safeParse({ seat: 'x'.repeat(201) }).success).toBe(false);
    expect(REQUESTS.up.safeParse({ spec: '' }).success).toBe(false);
    expect(REQUESTS.send.safeParse({ seat: 'a@b', text: 'x'.repeat(2_000_001) }).success).toBe(false);
    expect(REQUESTS.capture.safeParse({ seat: 'a@b', lines: 100_001 }).success).toBe(false);
    expect(REQUESTS.events.safeParse({ limit: 0 }).success).toBe(false);
  });

  it('the wire frame is strict too', () => {
    expect(rpcRequest.safeParse({ id: 1, token: 't', method: 'ps', params: {} }).success).toBe(true);
    expect(rpcRequest.safeParse({ id: 1, token: 't', method: 'ps', params: {}, extra: 1 }).success).toBe(false);
    expect(rpcRequest.safeParse({ id: '1', token: 't', method: 'ps' }).success).toBe(false);
    expect(rpcRequest.safeParse({ id: 1, token: 't'.repeat(201), method: 'ps' }).success).toBe(false);
  });
});
