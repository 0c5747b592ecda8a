import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { loadRigSpec } from '../../src/main/engine/spec';
import { BASE, KNOWN, TempRig, lineOf } from './helpers';

/** `budget: {tokens, usd}` on a rig or a pod: read into the spec, and a bad value refused with its line. */

let rig: TempRig;
beforeEach(() => {
  rig = new TempRig();
  rig.mkdir('wk/lead');
  rig.mkdir('wk/w1');
});
afterEach(() => rig.cleanup());

const load = (text: string) => {
  const file = rig.write('demo.yaml', text);
  return { file, r: loadRigSpec(file, { knownRuntimes: KNOWN, deps: rig.deps() }) };
};
const withPodBudget = (b: string) => BASE.replace('  - id: core\n', `  - id: core\n    budget: ${b}\n`);

describe('rig spec budgets', () => {
  it('reads a pod budget and a rig budget', () => {
    const { r } = load(`${withPodBudget('{tokens: 200000, usd: 2.5}')}budget: {usd: 10}\n`);
    if (!r.ok) throw new Error(r.message);
    expect(r.spec.pods[0]!.budget).toEqual({ tokens: 200000, usd: 2.5 });
    expect(r.spec.budget).toEqual({ usd: 10 });
  });

  it('leaves a spec without budgets without them', () => {
    const { r } = load(BASE);
    if (!r.ok) throw new Error(r.message);
    expect(r.spec.budget).toBeUndefined();
    expect(r.spec.pods[0]!.budget).toBeUndefined();
  });

  for (const [bad, why] of [
    ['{tokens: -5}', 'tokens must be more than 0'],
    ['{tokens: 1.5}', 'pods[0].budget.tokens: expected a int, got number 1.5'],
    ['{tokens: lots}', 'pods[0].budget.tokens: expected a number, got string "lots"'],
    ['{usd: 0}', 'usd must be more than 0'],
    ['{}', 'a budget needs tokens, usd or both'],
    ['{dollars: 5}', 'dollars'],
  ] as const)
    it(`refuses budget ${bad} with its line and why`, () => {
      const text = withPodBudget(bad);
      const { file, r } = load(text);
      expect(r.ok).toBe(false);
      if (r.ok) return;
      expect(r.code).toBe('SPEC_INVALID');
      expect(r.evidence?.file).toBe(file);
      expect(r.evidence?.line).toBe(lineOf(text, 'budget:'));
      expect(r.message).toContain(why);
    });
});
