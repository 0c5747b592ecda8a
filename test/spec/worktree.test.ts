import { describe, expect, it } from 'vitest';
import { parseRigSpec } from '../../src/main/engine/spec';
import { fakeDeps, KNOWN, lineOf } from './helpers';

/** `worktree:` on a member or a pod, `checks:` on a pod or the rig, and NOT_A_REPO with its line. */

const SPEC = [
  'name: demo',
  'checks: npm test',
  'pods:',
  '  - id: core',
  '    worktree: true',
  '    members:',
  '      - { id: lead, runtime: shell, cwd: /repo/app }',
  '      - { id: w1, runtime: shell, cwd: /repo/app, worktree: { base: dev } }',
  '      - { id: w2, runtime: shell, cwd: /repo/app, worktree: false }',
  '  - id: side',
  '    checks: [make, check]',
  '    members:',
  '      - { id: s1, runtime: shell, cwd: /plain/dir, worktree: true }',
].join('\n');

/** Only /repo holds a `.git`. */
const deps = () => fakeDeps({ exists: (p) => !p.endsWith('/.git') || p === '/repo/.git' });

describe('worktree and checks in a spec', () => {
  it('refuses a worktree member whose cwd is in no repository with NOT_A_REPO at its cwd line', () => {
    const r = parseRigSpec(SPEC, 'demo.yaml', { knownRuntimes: KNOWN, deps: deps() });
    expect(r.ok).toBe(false);
    if (r.ok) return;
    expect(r.code).toBe('NOT_A_REPO');
    expect(r.evidence).toMatchObject({ line: lineOf(SPEC, '/plain/dir'), field: 'pods[1].members[0].cwd' });
  });

  it('takes the pod default, a member base and a member opt-out; checks from the pod, else the rig', () => {
    const r = parseRigSpec(SPEC.replace('cwd: /plain/dir, worktree: true', 'cwd: /plain/dir'), 'demo.yaml', {
      knownRuntimes: KNOWN,
      deps: deps(),
    });
    if (!r.ok) throw new Error(r.message);
    const [core, side] = r.spec.pods;
    expect(core!.members.map((m) => m.worktree)).toEqual([{}, { base: 'dev' }, undefined]);
    expect(core!.members[0]!.checks).toEqual(['sh', '-c', 'npm test']);
    expect(side!.members[0]!.worktree).toBeUndefined();
    expect(side!.members[0]!.checks).toEqual(['make', 'check']);
  });
});
