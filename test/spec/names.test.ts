import { describe, expect, it } from 'vitest';
import { NAME_RE, parseSeatRef, seatAddress, validateName } from '../../src/main/engine/spec';

const TMUX_TARGET = [':', '.', '$', '%', '@', '#', '!', '~', '*', '?', '['];
const SHELL_META = [';', '&', '|', '<', '>', '(', ')', '`', "'", '"', '\\', '{', '}', '/', '='];
const WHITESPACE = [' ', '\t', '\n', '\r', '\u00a0'];

describe('NAME_RE', () => {
  it('accepts letters, digits, "_" and "-" starting with a letter or digit, up to 48 characters', () => {
    for (const ok of ['a', 'lead', 'worker1', 'Z9', '0day', 'a_b-c', 'x'.repeat(48)])
      expect(NAME_RE.test(ok), ok).toBe(true);
  });
  it('rejects empty, too long and leading "_" or "-" names', () => {
    for (const bad of ['', 'x'.repeat(49), '-a', '_a']) expect(NAME_RE.test(bad), bad).toBe(false);
  });
  it('rejects a trailing newline (no multiline $ loophole)', () => {
    expect(NAME_RE.test('lead\n')).toBe(false);
  });
});

describe('validateName', () => {
  it.each(TMUX_TARGET)('rejects tmux target syntax %j with SEAT_NAME_INVALID and says why', (ch) => {
    const r = validateName('member', `a${ch}b`);
    expect(r.ok).toBe(false);
    if (r.ok) return;
    expect(r.code).toBe('SEAT_NAME_INVALID');
    expect(r.message).toContain('tmux target syntax');
    expect(r.message).toContain('member');
  });
  it.each([...SHELL_META, ...WHITESPACE, '\u0000', '\u001b', 'é'])('rejects %j', (ch) => {
    const r = validateName('rig', `a${ch}b`);
    expect(r.ok).toBe(false);
    if (!r.ok) expect(r.code).toBe('SEAT_NAME_INVALID');
  });
  it('rejects non-strings without throwing', () => {
    for (const v of [undefined, null, 1, {}, [], true, Symbol('x')]) {
      const r = validateName('pod', v);
      expect(r.ok).toBe(false);
      if (!r.ok) expect(r.code).toBe('SEAT_NAME_INVALID');
    }
  });
  it('returns a valid name unchanged', () => {
    expect(validateName('pod', 'core')).toEqual({ ok: true, name: 'core' });
  });
  it('keeps messages short for a 10 kB name', () => {
    const r = validateName('rig', 'x'.repeat(10_000));
    expect(r.ok).toBe(false);
    if (!r.ok) expect(r.message.length).toBeLessThan(300);
  });
});

describe('parseSeatRef', () => {
  it('accepts exactly member@rig', () => {
    expect(parseSeatRef('lead@demo')).toEqual({ ok: true, member: 'lead', rig: 'demo', seat: 'lead@demo' });
  });
  it('round-trips seatAddress', () => {
    expect(seatAddress('worker1', 'demo')).toBe('worker1@demo');
    const r = parseSeatRef(seatAddress('worker1', 'demo'));
    expect(r.ok && r.seat).toBe('worker1@demo');
  });
  it.each([
    ['empty', ''],
    ['no @', 'lead'],
    ['two @', 'lead@demo@x'],
    ['empty member', '@demo'],
    ['empty rig', 'lead@'],
    ['tmux target in member', 'lead:0@demo'],
    ['tmux pane syntax', '%1@demo'],
    ['whitespace', 'lead @demo'],
    ['control character', 'lead\u0007@demo'],
    ['trailing newline', 'lead@demo\n'],
    ['NUL', 'lead@de\u0000mo'],
    ['10 kB', `${'a'.repeat(5000)}@${'b'.repeat(5000)}`],
    ['49-character rig', `lead@${'r'.repeat(49)}`],
  ])('rejects %s with SEAT_NAME_INVALID', (_what, text) => {
    const r = parseSeatRef(text);
    expect(r.ok).toBe(false);
    if (r.ok) return;
    expect(r.code).toBe('SEAT_NAME_INVALID');
    expect(r.message.length).toBeGreaterThan(0);
    expect(r.message.length).toBeLessThan(300);
  });
  it('rejects non-strings without throwing', () => {
    for (const v of [undefined, null, 42, {}, ['lead@demo'], { toString: () => 'lead@demo' }]) {
      const r = parseSeatRef(v);
      expect(r.ok).toBe(false);
      if (!r.ok) expect(r.code).toBe('SEAT_NAME_INVALID');
    }
  });
});
