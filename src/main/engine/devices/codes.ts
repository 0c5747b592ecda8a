import { createHash, randomBytes, randomInt, timingSafeEqual } from 'node:crypto';

/** No 0/O, 1/I/L: a code a person may have to read off one screen and type on another. */
const ALPHABET = 'ABCDEFGHJKMNPQRSTUVWXYZ23456789';
export const CODE_LENGTH = 8;

/** A new one-time pairing code: 8 characters, about 40 bits, guessed 5 times at most per pairing. */
export function newCode(): string {
  let s = '';
  for (let i = 0; i < CODE_LENGTH; i++) s += ALPHABET[randomInt(ALPHABET.length)];
  return s;
}

/** A code as typed or as in a URL: case, spaces and dashes do not matter; anything else is not a code. */
export function normalCode(raw: string): string | undefined {
  const s = raw.toUpperCase().replace(/[\s-]/g, '');
  return s.length === CODE_LENGTH && [...s].every((c) => ALPHABET.includes(c)) ? s : undefined;
}

/** How a code is printed: two groups of four. */
export const showCode = (code: string): string => `${code.slice(0, 4)}-${code.slice(4)}`;

/** SHA-256 is enough here: codes and tokens are random, never chosen by a person. */
export const hashOf = (secret: string): string => createHash('sha256').update(secret).digest('hex');

export const newDeviceId = (): string => `d${randomBytes(5).toString('hex')}`;

/** A device's token: its id (to find its row) and a secret only the device holds. */
export function newToken(id: string): { token: string; hash: string } {
  const secret = randomBytes(32).toString('base64url');
  return { token: `${id}.${secret}`, hash: hashOf(secret) };
}

/** The id a token names and whether its secret hashes to `hash`, compared in constant time. */
export function tokenParts(token: string): { id: string; secret: string } | undefined {
  const m = /^(d[0-9a-f]{10})\.([A-Za-z0-9_-]{43})$/.exec(token);
  return m ? { id: m[1]!, secret: m[2]! } : undefined;
}

export function secretMatches(secret: string, hash: string): boolean {
  const a = Buffer.from(hashOf(secret), 'hex');
  const b = Buffer.from(hash, 'hex');
  return a.length === b.length && timingSafeEqual(a, b);
}
