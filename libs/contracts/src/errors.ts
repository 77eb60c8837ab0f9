import { z } from 'zod';

/** The one error body of every service (DESIGN.md, HTTP conventions). */
export const ErrorType = z.enum([
  'validation_error',
  'authentication_error',
  'authorization_error',
  'not_found_error',
  'conflict_error',
  'rate_limit_error',
  'api_error',
]);
export type ErrorType = z.infer<typeof ErrorType>;

export const ErrorBody = z
  .object({
    error: z.object({
      type: ErrorType,
      code: z.string(),
      message: z.string(),
      details: z.unknown().optional(),
    }),
    requestId: z.string(),
  })
  .meta({ id: 'Error' });
export type ErrorBody = z.infer<typeof ErrorBody>;
