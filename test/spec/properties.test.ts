import path from 'node:path';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { stringify } from 'yaml';
import type { Result } from '../../src/shared/errors';
import {
  EDGE_KINDS,
  NAME_RE,
  RESTORE_POLICIES,
  parseRigSpec,
  parseSeatRef,
  seatAddress,
  type RigSpec,
} from '../../src/main/engine/spec';
import { BASE, KNOWN, fakeDeps } from './helpers';

const SPEC_CODES = ['SPEC_INVALID', 'RUNTIME_UNKNOWN', 'CWD_MISSING'];
const RUNS = 300;

/** The contract every input must meet: a valid spec that keeps every promise, or a coded Failure. */
function checkOutcome(r: Result<{ spec: RigSpec }>): void {
  if (!r.ok) {
    expect(SPEC_CODES).toContain(r.code);
    expect(typeof r.message).toBe('string');
    expect(r.message.length).toBeGreaterThan(0);
    // The parser's last-resort catch marks what it caught: a property run must never reach it.
    expect(r.evidence?.internalError).toBeUndefined();
    return;
  }
  const { spec } = r;
  expect(spec.name).toMatch(NAME_RE);
  expect(path.isAbsolute(spec.specPath)).toBe(true);
  const ids = new Set<string>();
  const pods = new Set<string>();
  for (const pod of spec.pods) {
    expect(pod.id).toMatch(NAME_RE);
    expect(pods.has(pod.id)).toBe(false);
    pods.add(pod.id);
    expect(pod.members.length).toBeGreaterThan(0);
    for (const m of pod.members) {
      expect(m.id).toMatch(NAME_RE);
      expect(ids.has(m.id)).toBe(false);
      ids.add(m.id);
      expect(m.podId).toBe(pod.id);
      expect(KNOWN).toContain(m.runtime);
      expect(path.isAbsolute(m.cwd)).toBe(true);
      expect(path.normalize(m.cwd)).toBe(m.cwd);
      expect(RESTORE_POLICIES).toContain(m.restorePolicy);
      expect(m.args.every((a) => typeof a === 'string')).toBe(true);
      expect(Object.values(m.env).every((v) => typeof v === 'string')).toBe(true);
    }
  }
  for (const e of spec.edges) {
    expect(ids.has(e.from) && ids.has(e.to)).toBe(true);
    expect(e.from).not.toBe(e.to);
    expect(EDGE_KINDS).toContain(e.kind);
  }
}

const garbage = fc.oneof(
  fc.string({ maxLength: 12 }),
  fc.integer(),
  fc.boolean(),
  fc.constant(null),
  fc.array(fc.string({ maxLength: 4 }), { maxLength: 3 }),
  fc.dictionary(fc.string({ maxLength: 4 }), fc.string({ maxLength: 4 }), { maxKeys: 2 }),
);
/** Mostly valid, sometimes hostile: each field is garbage about one time in `1 + odds`. */
const mostly = <T>(good: fc.Arbitrary<T>, bad: fc.Arbitrary<unknown>, odds = 40) =>
  fc.oneof({ weight: odds, arbitrary: good as fc.Arbitrary<unknown> }, { weight: 1, arbitrary: bad });
const hostileName = fc.oneof(
  fc.constantFrom('a:b', 'x y', '', '-x', 'w.1', '%1', 'r@x', '$s', 'a'.repeat(49), 'é', 'a\nb'),
  garbage,
);
/** A small pool, so duplicate ids and edges that name real members both happen often. */
const memberName = mostly(
  fc.oneof(
    { weight: 8, arbitrary: fc.constantFrom('lead', 'w1', 'w2', 'w3', 'w4', 'w5', 'w6') },
    { weight: 1, arbitrary: fc.stringMatching(NAME_RE) },
  ),
  hostileName,
);
const otherName = mostly(fc.oneof(fc.constantFrom('core', 'demo', 'team'), fc.stringMatching(NAME_RE)), hostileName);
const runtimeArb = mostly(fc.constantFrom(...KNOWN), fc.oneof(fc.constantFrom('claud', ''), garbage));
const cwdArb = mostly(
  fc.constantFrom('.', './a', '~', '~/x', '$WORK/x', '${WORK}', '/abs/dir', 'a/../../b', '$EMPTY/y', 'a$$b'),
  fc.oneof(fc.constantFrom('~bob/x', '$UNSET/x', 'missing', 'notes.txt', '', '${', '$EMPTY'), garbage),
);
const envArb = fc.dictionary(
  mostly(fc.constantFrom('A', 'B_1', 'PATH'), fc.constantFrom('1X', 'a-b', '__proto__', '')) as fc.Arbitrary<string>,
  mostly(fc.constantFrom('$WORK', 'v', '${EMPTY}x', ''), fc.oneof(fc.constant('$UNSET'), garbage)),
  { maxKeys: 3 },
);
const memberArb = fc
  .record(
    {
      id: memberName,
      runtime: runtimeArb,
      cwd: cwdArb,
      command: mostly(fc.constantFrom('bash', 'claude'), fc.oneof(fc.constant(''), garbage)),
      args: mostly(fc.array(fc.string({ maxLength: 5 }), { maxLength: 3 }), garbage),
      env: mostly(envArb, garbage),
      restore_policy: mostly(fc.constantFrom(...RESTORE_POLICIES), fc.oneof(fc.constant('always'), garbage)),
      restorePolicy: fc.constant('fresh'),
    },
    { requiredKeys: [] },
  )
  .chain((m) =>
    // Required keys are usually present, the stray key usually absent: deep rules get exercised too.
    fc.tuple(fc.nat({ max: 60 }), fc.nat({ max: 60 })).map(([drop, stray]) => {
      const out: Record<string, unknown> = { id: 'lead', runtime: 'shell', cwd: '.', ...m };
      if (drop === 0) delete out.id;
      if (drop === 1) delete out.runtime;
      if (drop === 2) delete out.cwd;
      if (stray !== 0) delete out.restorePolicy;
      return out;
    }),
  );
const podArb = fc.record({
  id: otherName,
  members: mostly(fc.array(memberArb, { minLength: 1, maxLength: 3 }), fc.oneof(fc.constant([]), garbage)),
});
const edgeArb = fc.record({ from: memberName, to: memberName, kind: mostly(fc.constantFrom(...EDGE_KINDS), garbage) });
const specArb = fc
  .record(
    {
      name: otherName,
      pods: mostly(fc.array(podArb, { minLength: 1, maxLength: 3 }), fc.oneof(fc.constant([]), garbage)),
      edges: mostly(fc.array(edgeArb, { maxLength: 3 }), garbage),
      extra: garbage,
    },
    { requiredKeys: ['name', 'pods'] },
  )
  .map((s) => {
    const out: Record<string, unknown> = { ...s };
    if ('extra' in out && JSON.stringify(out).length % 8 !== 0) delete out.extra;
    return out;
  });

/** Fragments of YAML syntax, so random text reaches the parser's corners, not only its first check. */
const yamlishArb = fc
  .array(
    fc.constantFrom(
      'name: demo\n',
      'pods:\n',
      '  - id: a\n',
      '    members:\n',
      '      - id: b\n',
      '        runtime: shell\n',
      '        cwd: .\n',
      '&a ',
      '*a',
      '[',
      ']',
      '{',
      '}',
      ':',
      ': ',
      '---\n',
      '...\n',
      '\t',
      ' ',
      '  ',
      '#',
      '"',
      "'",
      '\n',
      '!!str ',
      '!x ',
      '? ',
      '- ',
      ',',
      '|\n',
      '>-\n',
      '%YAML 1.2\n',
      '\\',
      '\u0000',
      '\ufeff',
    ),
    { maxLength: 40 },
  )
  .map((parts) => parts.join(''));

const parse = (text: string) => parseRigSpec(text, '/specs/demo.yaml', { knownRuntimes: KNOWN, deps: fakeDeps() });

describe('spec parsing properties', () => {
  it('random spec objects serialised to YAML give a valid spec or a coded failure, never a throw', () => {
    let oks = 0;
    fc.assert(
      fc.property(specArb, (obj) => {
        const r = parse(stringify(obj));
        if (r.ok) oks += 1;
        checkOutcome(r);
      }),
      { numRuns: RUNS },
    );
    // The generator must reach the success path too, or the property proves little.
    expect(oks).toBeGreaterThan(RUNS / 30);
  });

  it('random raw strings give a valid spec or a coded failure, never a throw', () => {
    fc.assert(
      fc.property(
        fc.oneof(fc.string({ maxLength: 200 }), fc.string({ unit: 'binary', maxLength: 200 }), yamlishArb),
        (text) => {
          checkOutcome(parse(text));
        },
      ),
      { numRuns: RUNS },
    );
  });

  it('a valid spec with one random character changed still never throws', () => {
    fc.assert(
      fc.property(
        fc.nat({ max: BASE.length - 1 }),
        fc.string({ unit: 'binary', minLength: 1, maxLength: 1 }),
        (at, ch) => {
          checkOutcome(parse(BASE.slice(0, at) + ch + BASE.slice(at + 1)));
        },
      ),
      { numRuns: RUNS },
    );
  });
});

describe('seat reference properties', () => {
  it('parseSeatRef never throws on random input, and anything it accepts is two valid names', () => {
    fc.assert(
      fc.property(
        fc.oneof(fc.string({ maxLength: 120 }), fc.string({ unit: 'binary', maxLength: 60 }), fc.anything()),
        (input) => {
          const r = parseSeatRef(input);
          if (r.ok) {
            expect(r.member).toMatch(NAME_RE);
            expect(r.rig).toMatch(NAME_RE);
            expect(r.seat).toBe(seatAddress(r.member, r.rig));
            expect(r.seat).toBe(input);
          } else {
            expect(r.code).toBe('SEAT_NAME_INVALID');
            expect(r.message.length).toBeGreaterThan(0);
          }
        },
      ),
      { numRuns: RUNS },
    );
  });

  it('round-trips parseSeatRef(seatAddress(member, rig)) for valid names', () => {
    fc.assert(
      fc.property(fc.stringMatching(NAME_RE), fc.stringMatching(NAME_RE), (member, rig) => {
        expect(parseSeatRef(seatAddress(member, rig))).toEqual({ ok: true, member, rig, seat: `${member}@${rig}` });
      }),
      { numRuns: RUNS },
    );
  });
});
