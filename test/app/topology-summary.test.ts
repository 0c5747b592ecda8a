import { describe, expect, it } from 'vitest';
import type { Decision } from '../../src/renderer/src/state/store';
import { callingSummary } from '../../src/renderer/src/views/topology-summary';
import { psRowOf } from '../support/ps-row';

const row = psRowOf;

/** A far-out pod's label: only what wants the person, counted, in one order. */
describe('callingSummary', () => {
  it('counts the seats that need the person and those that exited, needs first, and nothing else', () => {
    const rows = {
      'a@r': row('a@r', { activity: 'needs_input' }),
      'b@r': row('b@r', { state: 'gone' }),
      'c@r': row('c@r', { activity: 'needs_input' }),
      'd@r': row('d@r', { activity: 'working' }),
      'e@r': row('e@r', { state: 'stopped' }),
    };
    expect(callingSummary(Object.keys(rows), rows, [])).toBe('2 needs you · 1 exited');
  });

  it('a stopped seat with an open restore decision needs the person; a pod with none calling says nothing', () => {
    const rows = { 'e@r': row('e@r', { state: 'stopped' }), 'd@r': row('d@r', { activity: 'working' }) };
    const open = { seat: 'e@r', state: 'open' } as Decision;
    expect(callingSummary(['e@r', 'd@r'], rows, [open])).toBe('1 needs you');
    expect(callingSummary(['e@r', 'd@r'], rows, [])).toBe('');
  });
});
