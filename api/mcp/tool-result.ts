/**
 * What an MCP tool call answers: its value as JSON text (and as `structuredContent`), or — for every refusal, bad
 * argument or failure — a result with `isError` carrying our error body `{"error": {"code", "message", "details"}}`,
 * never a protocol error: the model reads why and may try again.
 */
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import type { Logger } from 'pino';
import { StatusUnavailableError } from '../../messages/runs';
import { ApiError, errorBody } from '../errors';
import type { ErrorCode } from '../../rules/error-codes';

export function toolValue(value: object): CallToolResult {
  return {
    content: [{ type: 'text', text: JSON.stringify(value, null, 2) }],
    structuredContent: value as Record<string, unknown>,
  };
}

export function toolError(code: ErrorCode, message: string, details?: unknown): CallToolResult {
  const body = errorBody(code, message, details);
  return {
    isError: true,
    content: [{ type: 'text', text: JSON.stringify(body, null, 2) }],
    structuredContent: { ...body },
  };
}

/** A thrown error as a tool error: ours keep their code; anything else is logged and answered without internals. */
export function toolErrorOf(error: unknown, logger: Logger, tool: string): CallToolResult {
  if (error instanceof ApiError) return toolError(error.code, error.message, error.details);
  if (error instanceof StatusUnavailableError)
    return toolError('status_unavailable', 'The message is in flight but no worker answers; retry shortly');
  logger.error({ err: error, tool }, 'MCP tool failed');
  return toolError('internal', 'An unexpected error occurred; it has been logged');
}
