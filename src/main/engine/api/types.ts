import type { z } from 'zod';
import type { Result } from '../../../shared/errors';
import type { Engine } from '../engine';

/** One handler per request of a domain's contract, typed by that request's schema and its answer's. */
export type Handlers<R extends Record<string, z.ZodType>, A extends { [M in keyof R]: z.ZodType<object> }> = {
  [M in keyof R]: (engine: Engine, params: z.output<R[M]>) => Promise<Result<z.output<A[M]>>>;
};
