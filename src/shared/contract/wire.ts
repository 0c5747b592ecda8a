import { type Failure, fail } from '../errors';
import { PUSHES, type PushMessage, type PushName } from './app';
import { CLIENT_ANSWERS, type ClientMethod, type ClientResult } from './index';

/**
 * The one adapter between JSON off a wire and the contract's types, for every client (the window
 * over IPC or WebSocket, the CLI over the engine socket). Answers and pushes are parsed against
 * their schemas in the contract tests, and here only when `strict` is on (the window's browser
 * tests turn it on), not on every call in production: so this file is where they are trusted.
 */
export interface WireCheck {
  /** Parse every answer and push against its schema and throw on a mismatch. */
  strict: boolean;
}
export const wireCheck: WireCheck = { strict: false };

function isResultShape(raw: unknown): raw is { ok: boolean } {
  return typeof raw === 'object' && raw !== null && typeof (raw as { ok?: unknown }).ok === 'boolean';
}

/** The answer to `method`, as its type; anything not even shaped like a result is a failure. */
export function answerFromWire<M extends ClientMethod>(method: M, raw: unknown): ClientResult<M> {
  if (!isResultShape(raw)) return fail('ENGINE_UNREACHABLE', `the answer to ${method} is not a result`);
  if (raw.ok && wireCheck.strict) {
    const { ok: _ok, ...body } = raw;
    CLIENT_ANSWERS[method].parse(body);
  }
  return raw as ClientResult<M> | Failure;
}

/** A push, as the contract's union; undefined for a frame that is not one. */
export function pushFromWire(raw: unknown): PushMessage | undefined {
  if (typeof raw !== 'object' || raw === null) return undefined;
  const { push, data } = raw as { push?: unknown; data?: unknown };
  if (typeof push !== 'string' || !Object.hasOwn(PUSHES, push)) return undefined;
  if (wireCheck.strict) PUSHES[push as PushName].parse(data);
  return raw as PushMessage;
}
