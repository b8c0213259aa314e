import type { ErrorCode } from '../rules/error-codes';

/**
 * The api's one error type and one error body: `{"error": {"code", "message", "details"}}`.
 * Routes and services throw {@link ApiError}; the error middleware turns it, and anything else, into a response.
 * Its code is one of the table's (rules/error-codes.ts), which also says the status it answers with.
 */
export class ApiError extends Error {
  constructor(
    readonly status: number,
    readonly code: ErrorCode,
    message: string,
    readonly details?: unknown,
  ) {
    super(message);
    this.name = 'ApiError';
  }
}

export interface ErrorBody {
  /** `details` is always present: what is wrong and where, or null when the message says it all. */
  error: { code: ErrorCode; message: string; details: unknown };
}

export function errorBody(code: ErrorCode, message: string, details?: unknown): ErrorBody {
  return { error: { code, message, details: details ?? null } };
}
