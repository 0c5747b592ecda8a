import fc from 'fast-check';
import { it } from 'vitest';
import { stringify } from 'yaml';
import { parseRigSpec } from '../../src/main/engine/spec';
import { KNOWN, fakeDeps } from './helpers';
import { __specArb } from './properties.test';
it('diag', () => {
  const hist = new Map<string, number>();
  for (const obj of fc.sample(__specArb, 300)) {
    const r = parseRigSpec(stringify(obj), '/specs/demo.yaml', { knownRuntimes: KNOWN, deps: fakeDeps() });
    const k = r.ok ? 'OK' : r.message.replace(/^[^ ]+ /, '').replace(/\[\d+\]/g, '[]').slice(0, 60);
    hist.set(k, (hist.get(k) ?? 0) + 1);
  }
  console.log([...hist].sort((a, b) => b[1] - a[1]).slice(0, 25));
});
