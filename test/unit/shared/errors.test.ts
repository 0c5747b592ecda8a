import { describe, expect, it } from 'vitest';
import { ERROR_CODES, exitCodeFor, fail, isFailure, type ErrorCode } from '../../../src/shared/errors';

/** Input the caller must change: exit 2. Everything else that is not ok: exit 1. */
const INPUT_ERRORS: ErrorCode[] = [
  'BAD_USAGE',
  'SPEC_NOT_FOUND',
  'SPEC_INVALID',
  'SEAT_NAME_INVALID',
  'TEXT_INVALID',
  'TEXT_TOO_LONG',
  'RUNTIME_UNKNOWN',
  'CWD_MISSING',
  'SEAT_NOT_FOUND',
  'RIG_NOT_FOUND',
  'DECISION_NOT_FOUND',
  'DECISION_CHOICE_INVALID',
  'QUEUE_ITEM_NOT_FOUND',
  'SEAT_EXISTS',
  'HOST_NOT_FOUND',
  'DEVICE_NOT_FOUND',
  'NOT_A_REPO',
  'WORKTREE_NOT_FOUND',
  'FILE_NOT_REGULAR',
  'FILE_TOO_LARGE',
];

describe('errors are data with stable codes', () => {
  it('every code maps to exit 1 or 2', () => {
    for (const c of ERROR_CODES) expect([1, 2], c).toContain(exitCodeFor(c));
  });

  for (const c of ERROR_CODES) {
    const want = INPUT_ERRORS.includes(c) ? 2 : 1;
    it(`${c} exits ${want}`, () => expect(exitCodeFor(c)).toBe(want));
  }

  it('custody refusals and system failures are never "bad usage"', () => {
    for (const c of [
      'CONVERSATION_LIVE_ELSEWHERE',
      'CONVERSATION_OWNER_UNKNOWN',
      'EVIDENCE_UNREADABLE',
      'TARGET_CHANGED',
      'NOT_REMOVED',
      'TMUX_FAILED',
      'INTERNAL',
    ] as const) {
      expect(exitCodeFor(c)).toBe(1);
    }
  });

  it('codes are unique', () => {
    expect(new Set(ERROR_CODES).size).toBe(ERROR_CODES.length);
  });

  it('fail() builds a Failure and leaves out hint and evidence when not given', () => {
    expect(fail('INTERNAL', 'x')).toEqual({ ok: false, code: 'INTERNAL', message: 'x' });
    expect(Object.keys(fail('INTERNAL', 'x', {}))).toEqual(['ok', 'code', 'message']);
    expect(fail('BAD_USAGE', 'y', { hint: 'h', evidence: { a: 1 } })).toEqual({
      ok: false,
      code: 'BAD_USAGE',
      message: 'y',
      hint: 'h',
      evidence: { a: 1 },
    });
  });

  it('isFailure recognises exactly { ok: false }', () => {
    expect(isFailure(fail('INTERNAL', 'x'))).toBe(true);
    for (const v of [null, undefined, 0, 'x', {}, { ok: true }, { ok: 'false' }, [false]])
      expect(isFailure(v)).toBe(false);
  });
});
