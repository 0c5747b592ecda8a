import { z } from 'zod';

/**
 * Until a method's answer is declared it uses this: any object. Each domain replaces it with the
 * answer's own schema; the contract test fails while any method still uses it.
 */
// biome-ignore lint/suspicious/noExplicitAny: a placeholder that must go; the contract test lists who still uses it.
export const untypedAnswer = z.custom<{ [k: string]: any }>((v) => typeof v === 'object' && v !== null);

/** An answer's body beside `ok: true`; a failure is the shared `Failure`. */
export type AnswerSchemas<R> = { readonly [M in keyof R]: z.ZodType<object> };

/** Errors are data: every failure on any transport has this shape (see shared/errors). */
export const failureSchema = z.strictObject({
  ok: z.literal(false),
  code: z.string().regex(/^[A-Z_]+$/),
  message: z.string().min(1),
  hint: z.string().optional(),
  evidence: z.record(z.string(), z.unknown()).optional(),
});
