import type { z } from 'zod';
import { ApiError } from './errors';

/** Parses `value` with `schema`, or throws a 400 whose details name each invalid field. */
export function parseInput<S extends z.ZodType>(
  schema: S,
  value: unknown,
  where: 'body' | 'params' | 'query' | 'arguments',
): z.output<S> {
  const parsed = schema.safeParse(value);
  if (parsed.success) return parsed.data;
  throw new ApiError(
    400,
    'invalid_request',
    `Invalid request ${where}`,
    parsed.error.issues.map((issue) => ({
      location: [where, ...issue.path.map(String)].join('.'),
      message: issue.message,
    })),
  );
}
