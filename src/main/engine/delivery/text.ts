import { fail, type Result } from '../../../shared/errors';

export const MAX_SEND_CHARS = 100_000;

/**
 * Text to send must be text: no escape sequences or other control characters that a terminal
 * would act on (ESC, C0 except tab and newline, DEL, C1). It is delivered as a literal paste, but
 * an agent's input box still sees the bytes, so they are refused rather than passed on.
 */
export function validateSendText(text: unknown): Result<{ text: string }> {
  if (typeof text !== 'string') return fail('TEXT_INVALID', 'the text to send must be a string');
  if (text.length === 0 || text.trim() === '') return fail('TEXT_INVALID', 'the text to send is empty');
  if (text.length > MAX_SEND_CHARS) {
    return fail(
      'TEXT_TOO_LONG',
      `the text is ${text.length} characters; at most ${MAX_SEND_CHARS} can be sent in one message`,
      {
        hint: "Put long material in a file in the seat's folder and send its path instead.",
        evidence: { length: text.length, max: MAX_SEND_CHARS },
      },
    );
  }
  // eslint-disable-next-line no-control-regex
  const bad = /[\x00-\x08\x0b-\x1f\x7f-\x9f]/.exec(text);
  if (bad) {
    const code = bad[0].charCodeAt(0);
    return fail(
      'TEXT_INVALID',
      `the text contains a control character (U+${code.toString(16).padStart(4, '0').toUpperCase()}) at offset ${bad.index}${code === 0x1b ? ', the start of an escape sequence' : ''}`,
      {
        hint: 'Send plain text; tabs and newlines are allowed.',
        evidence: { offset: bad.index, codePoint: code },
      },
    );
  }
  if (/[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/.test(text))
    return fail('TEXT_INVALID', 'the text is not valid Unicode (a lone surrogate)');
  return { ok: true, text };
}
