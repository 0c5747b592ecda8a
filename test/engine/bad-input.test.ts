import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { RigWorld, shellRigYaml } from '../support/rig';

/** Bad input gets a clear, structured error and changes nothing: no session, no rig, no row. */
describe('bad input changes nothing', () => {
  let w: RigWorld;
  beforeEach(() => {
    w = new RigWorld();
  });
  afterEach(() => w.cleanup());

  async function expectNothingChanged() {
    expect(w.sessions()).toEqual([]);
    const ps = await w.cli(['ps', '--json']);
    expect(ps.json.seats).toEqual([]);
  }

  const specCases: [string, string, string, RegExp][] = [
    ['malformed YAML', 'name: demo\npods: [\n  - id: x\n', 'SPEC_INVALID', /rig\.yaml:\d+/],
    [
      'an unknown runtime',
      shellRigYaml('demo', ['lead']).replace('runtime: shell', 'runtime: claud'),
      'RUNTIME_UNKNOWN',
      /claud/,
    ],
    ['duplicate member ids', shellRigYaml('demo', ['lead', 'lead']), 'SPEC_INVALID', /duplicate|lead/i],
    ['a missing cwd', shellRigYaml('demo', ['lead']).replace('cwd: .', 'cwd: ./nowhere'), 'CWD_MISSING', /nowhere/],
    [
      'a member id with tmux target syntax',
      shellRigYaml('demo', ['lead']).replace('id: lead', 'id: "le:ad.1"'),
      'SPEC_INVALID',
      /id/,
    ],
    [
      'a rig name with shell metacharacters',
      shellRigYaml('demo', ['lead']).replace('name: demo', 'name: "demo;rm -rf ~"'),
      'SPEC_INVALID',
      /name/,
    ],
    [
      'a member id with a dollar and percent',
      shellRigYaml('demo', ['lead']).replace('id: lead', 'id: "$0%1"'),
      'SPEC_INVALID',
      /id/,
    ],
  ];
  for (const [what, yaml, code, msg] of specCases) {
    it(`up refuses a spec with ${what} (${code}), exit 2, nothing launched`, async () => {
      const r = await w.cli(['up', w.spec('rig.yaml', yaml), '--json']);
      expect(r.code, r.stdout + r.stderr).toBe(2);
      expect(r.json.ok).toBe(false);
      expect(r.json.code).toBe(code);
      expect(r.json.message).toMatch(msg);
      await expectNothingChanged();
    });
  }

  it('up of a spec file that does not exist says SPEC_NOT_FOUND', async () => {
    const r = await w.cli(['up', join(w.root, 'nope.yaml'), '--json']);
    expect(r.json.code).toBe('SPEC_NOT_FOUND');
    await expectNothingChanged();
  });

  for (const seat of [
    'lead',
    'lead@',
    '@demo',
    'le:ad@demo',
    'lead@de.mo',
    '$0@demo',
    '%1@demo',
    'lead@demo;id',
    'a b@demo',
    'lead@@demo',
    '',
  ]) {
    it(`seat name ${JSON.stringify(seat)} is refused as SEAT_NAME_INVALID by launch, send, stop and capture`, async () => {
      for (const args of [
        ['launch', seat],
        ['stop', seat],
        ['send', seat, 'hi'],
        ['capture', seat],
      ]) {
        const r = await w.cli([...args, '--json']);
        expect(r.code, `${args.join(' ')}: ${r.stdout}${r.stderr}`).toBe(2);
        expect(r.json.code, args.join(' ')).toMatch(/SEAT_NAME_INVALID|BAD_USAGE/);
      }
      await expectNothingChanged();
    });
  }

  describe('text to send', () => {
    beforeEach(async () => {
      expect((await w.cli(['up', w.spec('rig.yaml', shellRigYaml('demo', ['lead']))])).code).toBe(0);
    });
    const eventsNow = async () => (await w.cli(['events', '--json'])).json.events.length;

    for (const [what, text, code] of [
      ['an escape sequence', 'hello \x1b[31mred\x1b[0m', 'TEXT_INVALID'],
      ['a bare ESC', '\x1b', 'TEXT_INVALID'],
      ['a NUL', 'a\x00b', 'TEXT_INVALID'],
      ['a C1 control (CSI)', 'a\u009bb', 'TEXT_INVALID'],
      ['only whitespace', '   ', 'TEXT_INVALID'],
    ] as const) {
      it(`refuses text with ${what} (${code}) and types nothing`, async () => {
        const before = await eventsNow();
        const f = join(w.root, 'text.txt');
        writeFileSync(f, text);
        const r = await w.cli(['send', 'lead@demo', '--file', f, '--json']);
        expect(r.code).toBe(2);
        expect(r.json.code).toBe(code);
        expect(await eventsNow()).toBe(before);
        expect(w.tmux.capture('lead@demo')).not.toContain('red');
      });
    }

    it('refuses a million characters with TEXT_TOO_LONG and types nothing', async () => {
      const before = await eventsNow();
      const f = join(w.root, 'big.txt');
      writeFileSync(f, 'x'.repeat(1_000_000));
      const r = await w.cli(['send', 'lead@demo', '--file', f, '--json']);
      expect(r.code).toBe(2);
      expect(r.json.code).toBe('TEXT_TOO_LONG');
      expect(r.json.evidence).toMatchObject({ length: 1_000_000 });
      expect(await eventsNow()).toBe(before);
      expect(w.tmux.capture('lead@demo')).not.toContain('xxxxxxxxxx');
    });

    it('multi-line text with tabs arrives as one paste', async () => {
      const r = await w.cli(['send', 'lead@demo', 'echo one\ttwo', '--json']);
      expect(r.code, r.stdout).toBe(0);
    });
  });

  it('unknown commands and missing arguments are bad usage (exit 2) with a next step', async () => {
    for (const args of [['frobnicate'], ['up'], ['send', 'lead@demo'], ['capture', 'lead@demo', '--lines', 'many']]) {
      const r = await w.cli([...args, '--json']);
      expect(r.code, args.join(' ')).toBe(2);
      expect(r.json).toMatchObject({ ok: false, code: 'BAD_USAGE' });
    }
  });
});
