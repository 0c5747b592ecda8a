import { describe, expect, it } from 'vitest';
import { parseRigSpec } from '../../src/main/engine/spec';
import { BASE, KNOWN, fakeDeps } from './helpers';

/** parseRigSpec is pure: everything it learns about the system comes through `deps`. */

const opts = (deps = fakeDeps()) => ({ knownRuntimes: KNOWN, deps });

describe('parseRigSpec', () => {
  it('names the file as given, the line and the field path in the message', () => {
    const text = [
      'name: demo',
      'pods:',
      '  - id: core',
      '    members:',
      '      - { id: lead, runtime: shell, cwd: . }',
      '      - id: worker1',
      '        runtime: claud',
      '        cwd: .',
    ].join('\n');
    const r = parseRigSpec(text, 'demo.yaml', opts());
    expect(r.ok).toBe(false);
    if (r.ok) return;
    expect(r.code).toBe('RUNTIME_UNKNOWN');
    expect(r.message).toBe(
      'demo.yaml:7: pods[0].members[1].runtime: unknown runtime "claud" (known: claude-code, codex, pi, shell)',
    );
    expect(r.evidence).toMatchObject({ line: 7, field: 'pods[0].members[1].runtime' });
    expect(r.evidence?.file).toMatch(/\/demo\.yaml$/);
  });

  it('resolves a relative cwd against the spec file folder, not the process cwd', () => {
    const r = parseRigSpec(BASE, '/specs/team/demo.yaml', opts());
    if (!r.ok) throw new Error(r.message);
    expect(r.spec.specPath).toBe('/specs/team/demo.yaml');
    expect(r.spec.pods[0]!.members.map((m) => m.cwd)).toEqual(['/specs/team/wk/lead', '/specs/team/wk/w1']);
  });

  it('touches the system only through deps, and never reads a file', () => {
    const deps = fakeDeps();
    const r = parseRigSpec(
      BASE.replace('cwd: ./wk/lead', 'cwd: ~/lead').replace('cwd: ./wk/w1', 'cwd: $WORK/w1'),
      '/s/demo.yaml',
      opts(deps),
    );
    if (!r.ok) throw new Error(r.message);
    expect(r.spec.pods[0]!.members.map((m) => m.cwd)).toEqual(['/home/u/lead', '/srv/wk/w1']);
    expect(deps.calls.every((c) => c.startsWith('exists ') || c.startsWith('isDirectory '))).toBe(true);
  });

  it('checks cwd existence through deps: missing and not-a-folder are CWD_MISSING', () => {
    let r = parseRigSpec(BASE.replace('./wk/w1', './wk/missing'), '/s/demo.yaml', opts());
    expect(!r.ok && r.code).toBe('CWD_MISSING');
    r = parseRigSpec(BASE.replace('./wk/w1', './notes.txt'), '/s/demo.yaml', opts());
    expect(!r.ok && r.code).toBe('CWD_MISSING');
  });

  it('turns a throwing deps.exists into CWD_MISSING instead of throwing', () => {
    const deps = fakeDeps({
      exists: () => {
        throw new Error('EACCES');
      },
    });
    const r = parseRigSpec(BASE, '/s/demo.yaml', opts(deps));
    expect(!r.ok && r.code).toBe('CWD_MISSING');
  });

  it('treats a non-string text as SPEC_INVALID without throwing', () => {
    for (const t of [undefined, null, 42, {}, Buffer.from(BASE)]) {
      const r = parseRigSpec(t as unknown as string, 'demo.yaml', opts());
      expect(!r.ok && r.code).toBe('SPEC_INVALID');
    }
  });

  it('accepts null for optional collections (an empty `edges:`)', () => {
    const r = parseRigSpec(BASE.replace(/edges:[\s\S]*$/, 'edges:\n'), '/s/demo.yaml', opts());
    if (!r.ok) throw new Error(r.message);
    expect(r.spec.edges).toEqual([]);
  });

  it('refuses YAML 1.1 merge keys as unknown keys rather than merging silently', () => {
    const text = BASE.replace('      - id: worker1', '      - <<: { runtime: pi }\n        id: worker1');
    const r = parseRigSpec(text, '/s/demo.yaml', opts());
    expect(!r.ok && r.code).toBe('SPEC_INVALID');
  });

  it('refuses a NUL character in command and args', () => {
    for (const extra of ['command: "ba\\0sh"', 'args: ["a\\0b"]']) {
      const r = parseRigSpec(
        BASE.replace('        cwd: ./wk/w1', `        cwd: ./wk/w1\n        ${extra}`),
        '/s/demo.yaml',
        opts(),
      );
      expect(!r.ok && r.code, extra).toBe('SPEC_INVALID');
    }
  });

  it('returns plain env objects with expanded values', () => {
    const text = BASE.replace(
      '        cwd: ./wk/w1',
      () => '        cwd: ./wk/w1\n        env: { A: "$WORK", B: "a$$b" }',
    );
    const r = parseRigSpec(text, '/s/demo.yaml', opts());
    if (!r.ok) throw new Error(r.message);
    const env = r.spec.pods[0]!.members[1]!.env;
    expect(env).toEqual({ A: '/srv/wk', B: 'a$b' });
    expect(Object.getPrototypeOf(env)).toBe(Object.prototype);
  });

  it('rejects deeply nested input without throwing', () => {
    const deep = `name: demo\npods: ${'['.repeat(50_000)}\n`;
    const r = parseRigSpec(deep, 'demo.yaml', opts());
    expect(!r.ok && r.code).toBe('SPEC_INVALID');
  });
});
