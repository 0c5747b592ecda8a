import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { MAX_SEND_CHARS, validateSendText } from '../../../src/main/engine/delivery/text';

describe('validateSendText: text is text', () => {
  const allowed: [string, string][] = [
    ['plain ASCII', 'hello world'],
    ['unicode', 'naïve café — 日本語 Ελληνικά'],
    ['emoji (surrogate pairs, ZWJ sequences)', '🚀 👩‍👩‍👧 🇫🇷'],
    ['tabs and newlines', 'line 1\n\tline 2\n'],
    ['shell metacharacters, sent literally', '$(rm -rf ~) `id` ; | & > <'],
    ['tmux key names, sent literally', 'C-c Enter Escape'],
    ['exactly 100000 characters', 'x'.repeat(MAX_SEND_CHARS)],
    ['100000 UTF-16 units of emoji', '😀'.repeat(MAX_SEND_CHARS / 2)],
    ['non-breaking and wide spaces around text', '\u00a0 hi \u3000'],
  ];
  for (const [what, text] of allowed) {
    it(`allows ${what}`, () => {
      expect(validateSendText(text)).toEqual({ ok: true, text });
    });
  }

  const refused: [string, string, number | undefined][] = [
    ['ESC (an escape sequence)', 'hi \x1b[31mred', 0x1b],
    ['a bare ESC', '\x1b', 0x1b],
    ['NUL', 'a\x00b', 0x00],
    ['BEL', 'a\x07', 0x07],
    ['backspace', 'ab\x08', 0x08],
    ['vertical tab', 'a\x0bb', 0x0b],
    ['form feed', 'a\x0cb', 0x0c],
    ['carriage return', 'a\rb', 0x0d],
    ['Ctrl-C (ETX)', 'a\x03', 0x03],
    ['Ctrl-D (EOT)', 'a\x04', 0x04],
    ['U+001F', 'a\x1f', 0x1f],
    ['DEL', 'a\x7f', 0x7f],
    ['C1 CSI (U+009B)', 'a\u009b31m', 0x9b],
    ['C1 NEL (U+0085)', 'a\u0085', 0x85],
    ['C1 U+0080', '\u0080a', 0x80],
    ['C1 U+009F', 'a\u009f', 0x9f],
  ];
  for (const [what, text, code] of refused) {
    it(`refuses ${what} and says where`, () => {
      const r = validateSendText(text);
      expect(r.ok).toBe(false);
      if (r.ok) return;
      expect(r.code).toBe('TEXT_INVALID');
      expect(r.evidence).toEqual({ offset: text.indexOf(String.fromCharCode(code!)), codePoint: code });
      expect(r.message).toContain(`U+${code!.toString(16).padStart(4, '0').toUpperCase()}`);
      if (code === 0x1b) expect(r.message).toMatch(/escape sequence/);
    });
  }

  it('refuses lone surrogates (high alone, low alone, reversed pair)', () => {
    for (const t of ['a\ud800', '\udc00a', 'a\udc00\ud800b', 'x\ud83d', '\ud800\ud800\udc00']) {
      const r = validateSendText(t);
      expect(r.ok, JSON.stringify(t)).toBe(false);
      if (!r.ok) expect(r.code).toBe('TEXT_INVALID');
    }
  });

  it('refuses empty and whitespace-only text', () => {
    for (const t of ['', ' ', '\n', '\t \n', '\u00a0', '\u2028']) {
      const r = validateSendText(t);
      expect(r.ok, JSON.stringify(t)).toBe(false);
      if (!r.ok) expect(r.code).toBe('TEXT_INVALID');
    }
  });

  it('refuses non-strings without throwing', () => {
    for (const t of [undefined, null, 42, {}, ['hi'], Buffer.from('hi')]) {
      const r = validateSendText(t);
      expect(r.ok).toBe(false);
      if (!r.ok) expect(r.code).toBe('TEXT_INVALID');
    }
  });

  it('refuses 100001 characters as TEXT_TOO_LONG, with the length and the limit as evidence', () => {
    const r = validateSendText('x'.repeat(MAX_SEND_CHARS + 1));
    expect(r).toMatchObject({
      ok: false,
      code: 'TEXT_TOO_LONG',
      evidence: { length: MAX_SEND_CHARS + 1, max: MAX_SEND_CHARS },
    });
    if (!r.ok) expect(r.hint).toMatch(/file/);
  });
});

/** Independent oracle: which UTF-16 units a terminal would act on. */
const forbidden = (c: number) => (c <= 0x1f && c !== 0x09 && c !== 0x0a) || (c >= 0x7f && c <= 0x9f);

/** Every high surrogate is followed by a low one and every low one preceded by a high one. */
function wellFormed(t: string): boolean {
  for (let i = 0; i < t.length; i++) {
    const c = t.charCodeAt(i);
    if (c >= 0xd800 && c <= 0xdbff) {
      const n = t.charCodeAt(i + 1);
      if (!(n >= 0xdc00 && n <= 0xdfff)) return false;
      i++;
    } else if (c >= 0xdc00 && c <= 0xdfff) return false;
  }
  return true;
}

describe('validateSendText property', () => {
  const unit = fc
    .oneof(
      { weight: 6, arbitrary: fc.integer({ min: 0x20, max: 0x7e }) },
      { weight: 2, arbitrary: fc.integer({ min: 0, max: 0xffff }) },
      {
        weight: 1,
        arbitrary: fc.constantFrom(0x09, 0x0a, 0x0d, 0x1b, 0x7f, 0x85, 0x9b, 0xd83d, 0xde00, 0xdc00, 0xa0, 0x2028),
      },
    )
    .map((c) => String.fromCharCode(c));
  const text = fc.oneof(
    fc.string({ unit, maxLength: 64 }),
    fc.string({ unit: 'grapheme', maxLength: 32 }),
    fc.constantFrom('x'.repeat(MAX_SEND_CHARS), 'x'.repeat(MAX_SEND_CHARS + 1), ' '.repeat(MAX_SEND_CHARS + 1)),
  );

  it('never throws; ok iff 1..100000 units, not blank, no forbidden unit, well-formed UTF-16', () => {
    fc.assert(
      fc.property(text, (t) => {
        const r = validateSendText(t);
        let bad = false;
        for (let i = 0; i < t.length; i++) if (forbidden(t.charCodeAt(i))) bad = true;
        const want = t.length >= 1 && t.length <= MAX_SEND_CHARS && t.trim() !== '' && !bad && wellFormed(t);
        expect(r.ok).toBe(want);
        if (r.ok) expect(r.text).toBe(t);
        else expect(['TEXT_INVALID', 'TEXT_TOO_LONG']).toContain(r.code);
        if (!r.ok && r.code === 'TEXT_TOO_LONG') expect(t.length).toBeGreaterThan(MAX_SEND_CHARS);
      }),
      { numRuns: 600 },
    );
  });

  it('never throws on any JSON value', () => {
    fc.assert(
      fc.property(fc.jsonValue(), (v) => {
        expect(typeof validateSendText(v).ok).toBe('boolean');
      }),
    );
  });
});
