import fs from 'node:fs';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { Failure } from '../../src/shared/errors';
import { loadRigSpec, type RigSpec } from '../../src/main/engine/spec';
import { BASE, KNOWN, TempRig, lineOf } from './helpers';

/** Every rule of the spec format, exercised through real files on disk. */

let rig: TempRig;
beforeEach(() => {
  rig = new TempRig();
  rig.mkdir('wk/lead');
  rig.mkdir('wk/w1');
});
afterEach(() => rig.cleanup());

function load(text: string, env: Record<string, string> = {}) {
  const file = rig.write('demo.yaml', text);
  return { file, r: loadRigSpec(file, { knownRuntimes: KNOWN, deps: rig.deps(env) }) };
}
function failure(text: string, env: Record<string, string> = {}): { file: string; f: Failure } {
  const { file, r } = load(text, env);
  if (r.ok) throw new Error(`expected a failure, got ${JSON.stringify(r.spec)}`);
  return { file, f: r };
}
function spec(text: string, env: Record<string, string> = {}): RigSpec {
  const { r } = load(text, env);
  if (!r.ok) throw new Error(r.message);
  return r.spec;
}
/** Asserts code, line and field, and that the message names file, line and field. */
function expectProblem(f: Failure, file: string, code: Failure['code'], line: number, field: string | null) {
  expect({ code: f.code, line: f.evidence?.line, field: f.evidence?.field }).toEqual({ code, line, field });
  expect(f.evidence?.file).toBe(file);
  expect(f.message.startsWith(`${file}:${line}: ${field ? `${field}: ` : ''}`), f.message).toBe(true);
}

describe('loadRigSpec on real files', () => {
  it('loads a valid spec, resolving cwds from the spec file folder, with defaults filled in', () => {
    const s = spec(BASE);
    expect(s.name).toBe('demo');
    expect(s.specPath).toBe(path.join(rig.dir, 'demo.yaml'));
    expect(s.pods).toHaveLength(1);
    expect(s.pods[0]!.members[0]).toEqual({
      id: 'lead',
      podId: 'core',
      runtime: 'claude-code',
      cwd: path.join(rig.dir, 'wk/lead'),
      args: [],
      env: {},
      restorePolicy: 'resume_if_possible',
    });
    expect(s.edges).toEqual([{ from: 'lead', to: 'worker1', kind: 'delegates_to' }]);
  });

  it('parses every documented field of a member', () => {
    const text = BASE.replace(
      '        cwd: ./wk/lead\n',
      `        cwd: ./wk/lead
        command: bash
        args: ["-l", "--norc"]
        env: { FOO: bar, WHERE: "$PLACE/x" }
        restore_policy: never
`,
    );
    const m = spec(text, { PLACE: '/p' }).pods[0]!.members[0]!;
    expect(m).toMatchObject({
      command: 'bash',
      args: ['-l', '--norc'],
      env: { FOO: 'bar', WHERE: '/p/x' },
      restorePolicy: 'never',
    });
  });

  it('reports a missing file as SPEC_NOT_FOUND naming the file', () => {
    const missing = path.join(rig.dir, 'nope.yaml');
    const r = loadRigSpec(missing, { knownRuntimes: KNOWN, deps: rig.deps() });
    expect(r.ok).toBe(false);
    if (r.ok) return;
    expect(r.code).toBe('SPEC_NOT_FOUND');
    expect(r.message).toContain(missing);
    expect(r.evidence).toMatchObject({ file: missing, errno: 'ENOENT' });
  });

  it('reports a folder given as the spec as SPEC_NOT_FOUND', () => {
    const r = loadRigSpec(rig.dir, { knownRuntimes: KNOWN, deps: rig.deps() });
    expect(!r.ok && r.code).toBe('SPEC_NOT_FOUND');
  });

  it('uses the live filesystem and environment by default', () => {
    const file = rig.write('demo.yaml', BASE);
    const r = loadRigSpec(file, { knownRuntimes: KNOWN });
    expect(r.ok).toBe(true);
  });

  it('rejects an unknown runtime with RUNTIME_UNKNOWN, the line, the field and the known runtimes', () => {
    const text = BASE.replace('runtime: codex', 'runtime: claud');
    const { file, f } = failure(text);
    const line = lineOf(text, /runtime: claud$/);
    expectProblem(f, file, 'RUNTIME_UNKNOWN', line, 'pods[0].members[1].runtime');
    expect(f.message).toBe(
      `${file}:${line}: pods[0].members[1].runtime: unknown runtime "claud" (known: claude-code, codex, pi, shell)`,
    );
    expect(f.evidence?.known).toEqual([...KNOWN]);
  });

  it.each([':', '.', '$', '%', '@', '#', '!', '~', '*', '?', '['])(
    'rejects a member id with tmux target syntax %j and names the line',
    (ch) => {
      const text = BASE.replace('id: worker1', `id: "work${ch}er1"`);
      const { file, f } = failure(text);
      expectProblem(f, file, 'SPEC_INVALID', lineOf(text, 'id: "work'), 'pods[0].members[1].id');
    },
  );

  it('rejects a rig name with whitespace or shell metacharacters on line 1', () => {
    for (const bad of ['"my rig"', '"a;rm -rf"', '"$(x)"', '"a|b"']) {
      const { file, f } = failure(BASE.replace('name: demo', `name: ${bad}`));
      expectProblem(f, file, 'SPEC_INVALID', 1, 'name');
    }
  });

  it('rejects a pod id that is not a valid name', () => {
    const text = BASE.replace('id: core', 'id: "core pod"');
    const { file, f } = failure(text);
    expectProblem(f, file, 'SPEC_INVALID', 3, 'pods[0].id');
  });

  it('reports a YAML syntax error with its line', () => {
    const text = BASE.replace('        cwd: ./wk/w1', '        cwd: [./wk/w1');
    const { file, f } = failure(text);
    expect(f.code).toBe('SPEC_INVALID');
    expect(f.evidence?.line).toBeGreaterThanOrEqual(lineOf(text, '[./wk/w1'));
    expect(f.message).toMatch(new RegExp(`^${escapeRe(file)}:\\d+: YAML: `));
  });

  it('reports a duplicate YAML key with its line', () => {
    const text = BASE.replace('        runtime: codex\n', '        runtime: codex\n        runtime: pi\n');
    const { f } = failure(text);
    expect(f.code).toBe('SPEC_INVALID');
    expect(f.evidence?.line).toBe(lineOf(text, 'runtime: pi'));
  });

  it('rejects multiple YAML documents', () => {
    const { f } = failure(`${BASE}---\nname: other\n`);
    expect(f.code).toBe('SPEC_INVALID');
    expect(f.message).toContain('multiple documents');
    expect(f.evidence?.line).toBe(lineOf(`${BASE}---\n`, '---'));
  });

  it('rejects an alias bomb quickly instead of expanding it', () => {
    const bomb = [
      'a: &a ["x","x","x","x","x","x","x","x","x","x"]',
      'b: &b [*a,*a,*a,*a,*a,*a,*a,*a,*a,*a]',
      'c: &c [*b,*b,*b,*b,*b,*b,*b,*b,*b,*b]',
      'd: &d [*c,*c,*c,*c,*c,*c,*c,*c,*c,*c]',
      'e: &e [*d,*d,*d,*d,*d,*d,*d,*d,*d,*d]',
      'f: [*e,*e,*e,*e,*e,*e,*e,*e,*e,*e]',
    ].join('\n');
    const t0 = Date.now();
    const { f } = failure(`${bomb}\n${BASE}`);
    expect(Date.now() - t0).toBeLessThan(2000);
    expect(f.code).toBe('SPEC_INVALID');
    expect(f.message).toContain('alias');
  });

  it('still accepts a few ordinary aliases', () => {
    const text = BASE.replace('runtime: claude-code', 'runtime: &rt codex').replace(
      'runtime: codex\n        cwd: ./wk/w1',
      'runtime: *rt\n        cwd: ./wk/w1',
    );
    expect(spec(text).pods[0]!.members.map((m) => m.runtime)).toEqual(['codex', 'codex']);
  });

  it('rejects a spec file over 256 KiB before reading it, naming the file and the limit', () => {
    const { f } = failure(`${BASE}# ${'x'.repeat(256 * 1024)}\n`);
    expect(f.code).toBe('FILE_TOO_LARGE');
    expect(f.message).toContain('limit');
    expect(f.evidence).toMatchObject({ limitBytes: 256 * 1024, file: expect.stringMatching(/\.yaml$/) });
  });

  it('rejects duplicate member ids across pods, naming the second one and where the first is', () => {
    const text = `${BASE.replace(
      'edges:',
      `  - id: other
    members:
      - id: lead
        runtime: pi
        cwd: ./wk/w1
edges:`,
    )}`;
    const { file, f } = failure(text);
    const second = lineOf(text, 'id: lead', lineOf(text, 'id: other'));
    expectProblem(f, file, 'SPEC_INVALID', second, 'pods[1].members[0].id');
    expect(f.message).toContain(`line ${lineOf(text, 'id: lead')}`);
  });

  it('rejects duplicate pod ids', () => {
    const text = BASE.replace(
      'edges:',
      `  - id: core
    members:
      - id: solo
        runtime: pi
        cwd: ./wk/w1
edges:`,
    );
    const { file, f } = failure(text);
    expectProblem(f, file, 'SPEC_INVALID', lineOf(text, 'id: core', 4), 'pods[1].id');
  });

  it('rejects an edge naming an unknown member', () => {
    const text = BASE.replace('to: worker1', 'to: worker9');
    const { file, f } = failure(text);
    expectProblem(f, file, 'SPEC_INVALID', lineOf(text, 'worker9'), 'edges[0].to');
    expect(f.message).toContain('"worker9"');
  });

  it('rejects an edge from a member to itself', () => {
    const text = BASE.replace('to: worker1', 'to: lead');
    const { file, f } = failure(text);
    expectProblem(f, file, 'SPEC_INVALID', lineOf(text, 'to: lead'), 'edges[0].to');
  });

  it('rejects an unknown edge kind and an unknown restore policy', () => {
    let { f } = failure(BASE.replace('delegates_to', 'reports_to'));
    expect(f.evidence?.field).toBe('edges[0].kind');
    const text = BASE.replace('        cwd: ./wk/w1', '        cwd: ./wk/w1\n        restore_policy: always');
    ({ f } = failure(text));
    expect(f.evidence).toMatchObject({ field: 'pods[0].members[1].restore_policy', line: lineOf(text, 'always') });
  });

  it('rejects an unknown top-level key at its line and lists the allowed keys', () => {
    const text = `${BASE}colour: blue\n`;
    const { file, f } = failure(text);
    expectProblem(f, file, 'SPEC_INVALID', lineOf(text, 'colour'), 'colour');
    expect(f.message).toContain('allowed: name, pods, edges');
  });

  it('rejects an unknown member key (restorePolicy is not restore_policy)', () => {
    const text = BASE.replace('        cwd: ./wk/w1', '        cwd: ./wk/w1\n        restorePolicy: fresh');
    const { file, f } = failure(text);
    expectProblem(f, file, 'SPEC_INVALID', lineOf(text, 'restorePolicy'), 'pods[0].members[1].restorePolicy');
    expect(f.message).toContain('restore_policy');
  });

  it('rejects non-string env values and args, suggesting quotes', () => {
    for (const [value, shown] of [
      ['1', 'number 1'],
      ['true', 'boolean true'],
      ['[a]', 'a list'],
      ['{a: b}', 'a mapping'],
      ['~', 'null'],
    ] as const) {
      const text = BASE.replace('        cwd: ./wk/w1', `        cwd: ./wk/w1\n        env: { PORT: ${value} }`);
      const { file, f } = failure(text);
      expectProblem(f, file, 'SPEC_INVALID', lineOf(text, 'PORT'), 'pods[0].members[1].env.PORT');
      expect(f.message).toContain(shown);
    }
    const { f } = failure(BASE.replace('        cwd: ./wk/w1', '        cwd: ./wk/w1\n        args: [-l, 3]'));
    expect(f.evidence?.field).toBe('pods[0].members[1].args[1]');
    expect(f.message).toContain('quote it');
  });

  it('rejects an env name that is not a variable name, and __proto__', () => {
    let { f } = failure(BASE.replace('        cwd: ./wk/w1', '        cwd: ./wk/w1\n        env: { "A-B": x }'));
    expect(f.evidence?.field).toBe('pods[0].members[1].env["A-B"]');
    ({ f } = failure(BASE.replace('        cwd: ./wk/w1', '        cwd: ./wk/w1\n        env: { __proto__: x }')));
    expect(f.evidence?.field).toBe('pods[0].members[1].env.__proto__');
  });

  it('rejects a pod without members and a rig without pods', () => {
    let text = BASE.replace('edges:', '  - id: empty\n    members: []\nedges:');
    let { file, f } = failure(text);
    expectProblem(f, file, 'SPEC_INVALID', lineOf(text, 'members: []'), 'pods[1].members');
    text = 'name: demo\npods: []\n';
    ({ file, f } = failure(text));
    expectProblem(f, file, 'SPEC_INVALID', 2, 'pods');
  });

  it('reports a missing required field at the nearest parent line', () => {
    const text = BASE.replace('        runtime: codex\n', '');
    const { file, f } = failure(text);
    expectProblem(f, file, 'SPEC_INVALID', lineOf(text, 'id: worker1'), 'pods[0].members[1].runtime');
    expect(f.message).toContain('is required');
  });

  it('rejects an empty spec and a spec that is not a mapping', () => {
    expect(failure('').f.code).toBe('SPEC_INVALID');
    expect(failure('# only a comment\n').f.message).toContain('empty');
    expect(failure('- a\n- b\n').f.message).toContain('mapping');
  });

  it('expands ~ to the home folder and $VAR/${VAR} from the environment in cwd', () => {
    rig.mkdir('home/proj');
    const text = BASE.replace('cwd: ./wk/lead', 'cwd: ~/proj').replace('cwd: ./wk/w1', 'cwd: ${ROOT}/wk/$SUB');
    const s = loadRigSpec(rig.write('demo.yaml', text), {
      knownRuntimes: KNOWN,
      deps: rig.deps({ ROOT: rig.dir, SUB: 'w1' }, path.join(rig.dir, 'home')),
    });
    if (!s.ok) throw new Error(s.message);
    expect(s.spec.pods[0]!.members.map((m) => m.cwd)).toEqual([
      path.join(rig.dir, 'home/proj'),
      path.join(rig.dir, 'wk/w1'),
    ]);
  });

  it('treats an unset variable in cwd as SPEC_INVALID naming the variable', () => {
    const text = BASE.replace('cwd: ./wk/w1', 'cwd: $PROJECT_ROOT/w1');
    const { file, f } = failure(text);
    expectProblem(f, file, 'SPEC_INVALID', lineOf(text, 'PROJECT_ROOT'), 'pods[0].members[1].cwd');
    expect(f.message).toContain('PROJECT_ROOT');
    expect(f.evidence?.variable).toBe('PROJECT_ROOT');
  });

  it('treats an unset variable in an env value as SPEC_INVALID naming the variable', () => {
    const text = BASE.replace(
      '        cwd: ./wk/w1',
      '        cwd: ./wk/w1\n        env:\n          TOKEN: ${API_TOKEN}',
    );
    const { file, f } = failure(text);
    expectProblem(f, file, 'SPEC_INVALID', lineOf(text, 'TOKEN:'), 'pods[0].members[1].env.TOKEN');
    expect(f.message).toContain('API_TOKEN');
  });

  it('expands ~ only at the start', () => {
    rig.mkdir('wk/~');
    const text = BASE.replace('cwd: ./wk/w1', 'cwd: wk/~');
    expect(spec(text).pods[0]!.members[1]!.cwd).toBe(path.join(rig.dir, 'wk/~'));
    expect(failure(BASE.replace('cwd: ./wk/w1', 'cwd: ~root/x')).f.code).toBe('SPEC_INVALID');
  });

  it('reports a cwd that does not exist as CWD_MISSING with its line', () => {
    const text = BASE.replace('cwd: ./wk/w1', 'cwd: ./wk/gone');
    const { file, f } = failure(text);
    expectProblem(f, file, 'CWD_MISSING', lineOf(text, 'gone'), 'pods[0].members[1].cwd');
    expect(f.evidence?.cwd).toBe(path.join(rig.dir, 'wk/gone'));
  });

  it('reports a cwd that is a file, not a folder, as CWD_MISSING', () => {
    rig.write('wk/file.txt', 'x');
    const text = BASE.replace('cwd: ./wk/w1', 'cwd: ./wk/file.txt');
    const { file, f } = failure(text);
    expectProblem(f, file, 'CWD_MISSING', lineOf(text, 'file.txt'), 'pods[0].members[1].cwd');
  });

  it('lists several problems in evidence (at most 10), in source order, the first in the message', () => {
    const members = Array.from({ length: 12 }, (_, i) => `      - { id: m${i}, runtime: nope${i}, cwd: . }`).join('\n');
    const text = `name: demo\npods:\n  - id: core\n    members:\n${members}\n`;
    const { file, f } = failure(text);
    const problems = f.evidence?.problems as { line: number; code: string; message: string }[];
    expect(problems).toHaveLength(10);
    expect(f.evidence?.problemCount).toBe(12);
    expect(problems.map((p) => p.line)).toEqual(Array.from({ length: 10 }, (_, i) => 5 + i));
    expect(f.message).toBe(problems[0]!.message);
    expect(f.message.startsWith(`${file}:5: pods[0].members[0].runtime: unknown runtime "nope0"`)).toBe(true);
  });

  it('does not create, write or launch anything', () => {
    const file = rig.write('demo.yaml', BASE.replace('cwd: ./wk/w1', 'cwd: ./wk/not-yet'));
    const before = fs.readdirSync(rig.dir, { recursive: true }).sort();
    loadRigSpec(file, { knownRuntimes: KNOWN, deps: rig.deps() });
    expect(fs.readdirSync(rig.dir, { recursive: true }).sort()).toEqual(before);
  });
});

function escapeRe(s: string): string {
  return s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}

describe('hosts: and member host', () => {
  const hosts = [
    'hosts:',
    '  box:',
    '    ssh: { host: 10.0.0.5, user: dev, port: 2222, identity_file: ~/.ssh/id_box }',
    '    tmux_socket: rd',
    '  here: local',
  ];
  const member = (extra: string) =>
    `${[
      'name: demo',
      ...hosts,
      'pods:',
      '  - id: p',
      '    members:',
      `      - { id: lead, runtime: shell, ${extra} }`,
    ].join('\n')}\n`;

  it('reads an ssh host and a member on it, with the remote cwd taken as written', () => {
    const s = spec(member('cwd: /srv/remote/only, host: box'));
    expect(s.hosts).toEqual([
      {
        name: 'box',
        ssh: { host: '10.0.0.5', user: 'dev', port: 2222, identityFile: expect.stringMatching(/\/\.ssh\/id_box$/) },
        tmuxSocket: 'rd',
      },
    ]);
    expect(s.pods[0]!.members[0]).toMatchObject({ host: 'box', cwd: '/srv/remote/only' });
  });

  it('a member on local stays a local member', () => {
    const s = spec(member('cwd: wk/lead, host: here'));
    expect(s.pods[0]!.members[0]!.host).toBeUndefined();
  });

  it('refuses a member naming an unknown host, and a relative cwd on a remote host', () => {
    expect(failure(member('cwd: /x, host: nowhere')).f.message).toMatch(/unknown host "nowhere"/);
    expect(failure(member('cwd: wk/lead, host: box')).f.message).toMatch(/absolute path on that host/);
  });
});
