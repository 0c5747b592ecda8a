import { fail, type Result } from '../../../shared/errors';

/**
 * Rig, pod and member names end up in tmux session names, seat addresses (`member@rig`), file
 * names and log lines. The rule is deliberately narrow: ASCII letters, digits, `_` and `-`, starting
 * with a letter or digit, at most 48 characters. That keeps out whitespace, shell metacharacters and
 * every character tmux gives meaning to in a target (`:` `.` `$` `%` `@` `#` `!` `~` `*` `?` `[`).
 */
export const NAME_RE = /^[A-Za-z0-9][A-Za-z0-9_-]{0,47}$/;
export const NAME_MAX = 48;
const NAME_RULE = 'use 1-48 ASCII letters, digits, "_" or "-", starting with a letter or digit';

export type NameKind = 'rig' | 'member' | 'pod' | 'host';

const TMUX_TARGET_CHARS = new Set([':', '.', '$', '%', '@', '#', '!', '~', '*', '?', '[', ']']);
const SHELL_CHARS = new Set([';', '&', '|', '<', '>', '(', ')', '{', '}', "'", '"', '`', '\\', '=', ',', '+', '^']);

/** A short, escaped rendering of untrusted text for messages: never a 10 kB line, never raw control bytes. */
export function quote(value: string, max = 40): string {
  const s = value.length > max ? `${value.slice(0, max)}…` : value;
  return JSON.stringify(s);
}

export function describeType(value: unknown): string {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'a list';
  if (typeof value === 'object') return 'a mapping';
  if (typeof value === 'string') return `string ${quote(value)}`;
  if (typeof value === 'number' || typeof value === 'boolean') return `${typeof value} ${String(value)}`;
  return typeof value;
}

/** Why a string fails NAME_RE, in words a person can act on; undefined when it passes. */
export function nameProblem(name: string): string | undefined {
  if (NAME_RE.test(name)) return undefined;
  if (name.length === 0) return 'is empty';
  if (name.length > NAME_MAX) return `is ${name.length} characters long; the limit is ${NAME_MAX}`;
  for (const ch of name) {
    if (/[A-Za-z0-9_-]/.test(ch)) continue;
    const shown = JSON.stringify(ch);
    const code = ch.codePointAt(0) ?? 0;
    if (code < 0x20 || code === 0x7f) return `contains a control character (${shown})`;
    if (/\s/.test(ch)) return `contains whitespace (${shown})`;
    if (TMUX_TARGET_CHARS.has(ch)) return `contains ${shown}, which is tmux target syntax`;
    if (SHELL_CHARS.has(ch)) return `contains ${shown}, a shell metacharacter`;
    if (ch === '/') return 'contains "/", a path separator';
    if (code > 0x7f) return `contains a non-ASCII character (${shown})`;
    return `contains ${shown}`;
  }
  return 'must start with a letter or digit';
}

/** Validates one name outside a spec (CLI flags, requests). Failures use SEAT_NAME_INVALID. */
export function validateName(kind: NameKind, name: unknown): Result<{ name: string }> {
  if (typeof name !== 'string') {
    return fail('SEAT_NAME_INVALID', `invalid ${kind} name: expected a string, got ${describeType(name)}`, {
      hint: NAME_RULE,
      evidence: { kind },
    });
  }
  const problem = nameProblem(name);
  if (problem !== undefined) {
    return fail('SEAT_NAME_INVALID', `invalid ${kind} name ${quote(name)}: it ${problem}`, {
      hint: NAME_RULE,
      evidence: { kind, name: quote(name, 100) },
    });
  }
  return { ok: true, name };
}

export function seatAddress(member: string, rig: string): string {
  return `${member}@${rig}`;
}

/** Longest possible valid seat: two maximal names and the `@`. Longer input is refused before any scan. */
const SEAT_MAX = NAME_MAX * 2 + 1;

/** Accepts exactly `member@rig` with both parts valid names. Never throws. */
export function parseSeatRef(text: unknown): Result<{ member: string; rig: string; seat: string }> {
  const hint = `write a seat as member@rig; each part: ${NAME_RULE}`;
  if (typeof text !== 'string') {
    return fail('SEAT_NAME_INVALID', `invalid seat: expected "member@rig", got ${describeType(text)}`, { hint });
  }
  if (text.length > SEAT_MAX) {
    return fail('SEAT_NAME_INVALID', `invalid seat ${quote(text)}: ${text.length} characters is longer than any seat`, {
      hint,
      evidence: { length: text.length },
    });
  }
  const parts = text.split('@');
  if (parts.length !== 2) {
    const why = parts.length === 1 ? 'it has no "@"' : 'it has more than one "@"';
    return fail('SEAT_NAME_INVALID', `invalid seat ${quote(text)}: expected member@rig, but ${why}`, { hint });
  }
  const [member = '', rig = ''] = parts;
  for (const [kind, name] of [
    ['member', member],
    ['rig', rig],
  ] as const) {
    const problem = nameProblem(name);
    if (problem !== undefined) {
      return fail('SEAT_NAME_INVALID', `invalid seat ${quote(text)}: the ${kind} name ${problem}`, {
        hint,
        evidence: { part: kind },
      });
    }
  }
  return { ok: true, member, rig, seat: seatAddress(member, rig) };
}
