import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { loadRigSpec } from '../../src/main/engine/spec';
import { KNOWN } from './helpers';

const EXAMPLE = path.resolve(__dirname, '../../examples/demo-rig.yaml');

describe('examples/demo-rig.yaml', () => {
  it('loads with the spec loader: three bash shell seats in the examples folder, with their edges', () => {
    const r = loadRigSpec(EXAMPLE, { knownRuntimes: KNOWN });
    if (!r.ok) throw new Error(r.message);
    const { spec } = r;
    expect(spec.name).toBe('demo');
    expect(spec.pods.map((p) => p.id)).toEqual(['team']);
    const members = spec.pods[0]!.members;
    expect(members.map((m) => m.id)).toEqual(['lead', 'worker1', 'worker2']);
    for (const m of members) {
      expect(m).toMatchObject({
        runtime: 'shell',
        podId: 'team',
        command: 'bash',
        args: ['--noprofile', '--norc'],
        cwd: path.dirname(EXAMPLE),
      });
    }
    expect(spec.edges).toEqual([
      { from: 'lead', to: 'worker1', kind: 'delegates_to' },
      { from: 'lead', to: 'worker2', kind: 'delegates_to' },
      { from: 'worker1', to: 'worker2', kind: 'collaborates_with' },
    ]);
  });
});
