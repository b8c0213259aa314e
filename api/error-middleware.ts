import type { ErrorRequestHandler, RequestHandler, Response } from 'express';
import type { Logger } from 'pino';
import type { ErrorCode } from '../rules/error-codes';
import { ChainStatusUnavailableError } from '../chains/chain-service';
import { StatusUnavailableError } from '../messages/runs';
import { ApiError, errorBody } from './errors';

/** Errors raised by express.json() carry a `type`; each maps to a client error. */
const BODY_PARSER_ERRORS: Record<string, { status: number; code: ErrorCode; message: string }> = {
  'entity.parse.failed': { status: 400, code: 'invalid_json', message: 'The request body is not valid JSON' },
  'entity.too.large': { status: 413, code: 'payload_too_large', message: 'The request body is too large' },
  'encoding.unsupported': { status: 415, code: 'unsupported_encoding', message: 'Unsupported content encoding' },
  'charset.unsupported': { status: 415, code: 'unsupported_charset', message: 'Unsupported charset' },
  'request.aborted': { status: 400, code: 'request_aborted', message: 'The request was aborted' },
};

/** Failures to reach a dependency over the network (not errors the dependency answered): the caller may retry. */
const DATABASE_UNREACHABLE = new Set([
  'MongoNetworkError',
  'MongoNetworkTimeoutError',
  'MongoServerSelectionError',
  'MongooseServerSelectionError',
  'MongoNotConnectedError',
]);

function isUnavailable(error: unknown): string | undefined {
  const name = (error as { name?: string })?.name ?? '';
  if (DATABASE_UNREACHABLE.has(name)) return 'database';
  if (name === 'ServiceError' || name === 'TransportError' || name === 'ConnectionError') return 'Temporal';
  // The api is stopping: its local models' threads are stopped (router/embeddings/embedding-pool.ts).
  if (name === 'EmbeddingPoolClosed') return 'router';
  return undefined;
}

/**
 * A running message or chain whose status query no worker answered (a read, or a repeated send racing the first
 * run's first task): it exists, its status is a retry away. The answer's message, else undefined.
 */
function statusUnavailable(error: unknown): string | undefined {
  if (error instanceof StatusUnavailableError) return 'The message is in flight but no worker answers; retry shortly';
  if (error instanceof ChainStatusUnavailableError) return 'A chain is running but no worker answers; retry shortly';
  return undefined;
}

function retryShortly(res: Response, code: ErrorCode, message: string): void {
  res.status(503).set('retry-after', '5').json(errorBody(code, message));
}

/**
 * Other client errors raised while reading the body (http-errors with a 4xx status and `expose`, e.g. a body
 * declared gzip that is not): answered with their status, never as our 500.
 */
function clientBodyError(error: unknown): number | undefined {
  const { status, expose } = (error ?? {}) as { status?: unknown; expose?: unknown };
  return typeof status === 'number' && status >= 400 && status < 500 && expose === true ? status : undefined;
}

export const notFoundHandler: RequestHandler = (req, res) => {
  res.status(404).json(errorBody('not_found', `No route ${req.method} ${req.path}`));
};

export function errorHandler(logger: Logger): ErrorRequestHandler {
  return (error: unknown, req, res, _next) => {
    if (error instanceof ApiError) {
      res.status(error.status).json(errorBody(error.code, error.message, error.details));
      return;
    }
    const bodyError = BODY_PARSER_ERRORS[(error as { type?: string })?.type ?? ''];
    if (bodyError) {
      res.status(bodyError.status).json(errorBody(bodyError.code, bodyError.message));
      return;
    }
    const clientStatus = clientBodyError(error);
    if (clientStatus) {
      res
        .status(clientStatus)
        .json(errorBody('unreadable_body', `The request body could not be read: ${(error as Error).message}`));
      return;
    }
    const inFlight = statusUnavailable(error);
    if (inFlight) {
      logger.warn({ err: error, path: req.path }, 'status unavailable');
      retryShortly(res, 'status_unavailable', inFlight);
      return;
    }
    const dependency = isUnavailable(error);
    if (dependency) {
      logger.warn({ err: error, path: req.path }, `${dependency} unavailable`);
      retryShortly(res, 'unavailable', `The ${dependency} is unavailable; retry shortly`);
      return;
    }
    logger.error({ err: error, method: req.method, path: req.path }, 'unexpected error');
    res.status(500).json(errorBody('internal', 'An unexpected error occurred; it has been logged'));
  };
}
