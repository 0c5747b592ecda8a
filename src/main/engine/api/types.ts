import type { z } from 'zod';
import type { Result } from '../../../shared/errors';
import type { Engine } from '../engine';

/** One handler per request of a domain's contract, typed by that request's schema. */
export type Handlers<R extends Record<string, z.ZodType>> = {
  [M in keyof R]: (engine: Engine, params: z.output<R[M]>) => Promise<Result<Record<string, unknown>>>;
};
