import { z } from 'zod';

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
