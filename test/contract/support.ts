import { expect } from 'vitest';
import { type ClientMethod, CLIENT_ANSWERS, PUSHES, type PushName } from '../../src/shared/contract';
import { failureSchema } from '../../src/shared/contract/answer';

/**
 * The contract tests' one check: a real answer of `method` parses against the schema declared
 * for it (strict objects, so a field the engine sends but the contract does not declare fails),
 * and a failure parses as a failure. Returns the parsed body for further checks.
 */
export function expectAnswer(method: ClientMethod, result: unknown): Record<string, unknown> {
  const schema = CLIENT_ANSWERS[method];
  expect(result, `${method} answered ${JSON.stringify(result)?.slice(0, 400)}`).toMatchObject({ ok: true });
  const { ok: _ok, ...body } = result as { ok: true };
  const parsed = schema.safeParse(body);
  expect(parsed.success ? '' : `${method}: ${parsed.error.message}\n${JSON.stringify(body).slice(0, 2000)}`).toBe('');
  return body;
}

export function expectFailure(method: string, result: unknown, code?: string): void {
  const parsed = failureSchema.safeParse(result);
  expect(parsed.success ? '' : `${method}: ${parsed.error.message}`).toBe('');
  if (code) expect(result).toMatchObject({ code });
}

export function expectPush(name: PushName, data: unknown): void {
  const parsed = PUSHES[name].safeParse(data);
  expect(parsed.success ? '' : `push ${name}: ${parsed.error.message}\n${JSON.stringify(data).slice(0, 2000)}`).toBe(
    '',
  );
}
