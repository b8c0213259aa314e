/**
 * The process-level last resort: `uncaughtException` and `unhandledRejection` handlers for the api and the worker.
 *
 * What is safe to survive. After an uncaught exception Node's own advice is that the process is in an unknown state:
 * synchronous code was cut short somewhere, and whatever it was changing may be half done. The exception is
 * survivable only when it is known to concern one connection and nothing shared: a socket reset or written after it
 * closed, an HTTP parser error on one request, a WebSocket protocol error on one socket, a failed call to the
 * database or Temporal made for one request. Those are logged (`warn`) and the process keeps serving; that
 * connection or request is already lost, the others are untouched. Anything else (a TypeError, a RangeError, an
 * unknown error) is a bug whose reach we cannot bound: it is logged (`fatal`) and the process exits 1, so the
 * supervisor (Kubernetes, systemd, embedded mode) starts a clean one, as Node would have done.
 *
 * The same rule holds for unhandled rejections. The parts of this code that face clients catch their own errors
 * (api/ws/socket-hub.ts answers error frames, express 5 forwards rejected handlers to the error middleware): this is
 * only the net under them.
 */
import type { Logger } from 'pino';

/** Error codes that concern one socket or one request. */
const CONNECTION_CODES = new Set([
  'ECONNRESET',
  'ECONNABORTED',
  'ECONNREFUSED',
  'EPIPE',
  'ETIMEDOUT',
  'EHOSTUNREACH',
  'ENETUNREACH',
  'ERR_STREAM_DESTROYED',
  'ERR_STREAM_WRITE_AFTER_END',
  'ERR_STREAM_PREMATURE_CLOSE',
  'ERR_HTTP_HEADERS_SENT',
  'ERR_HTTP_REQUEST_TIMEOUT',
  'ERR_SOCKET_CLOSED',
]);
/** Prefixes of error-code families that concern one connection: ws protocol errors, HTTP parser errors, undici sockets. */
const CONNECTION_CODE_PREFIXES = ['WS_ERR_', 'HPE_', 'UND_ERR_'];
/** Errors of a call to the database or Temporal that did not get through: they concern the request that made it. */
const DEPENDENCY_CALL_ERRORS = new Set([
  'MongoNetworkError',
  'MongoNetworkTimeoutError',
  'MongoServerSelectionError',
  'MongooseServerSelectionError',
  'MongoNotConnectedError',
  'ServiceError',
  'TransportError',
  'ConnectionError',
]);

/** Whether `error` concerns one connection or one request only, so the process may go on serving the others. */
export function isConfinedError(error: unknown): boolean {
  const { code, name } = (error ?? {}) as { code?: unknown; name?: unknown };
  if (
    typeof code === 'string' &&
    (CONNECTION_CODES.has(code) || CONNECTION_CODE_PREFIXES.some((p) => code.startsWith(p)))
  )
    return true;
  return typeof name === 'string' && DEPENDENCY_CALL_ERRORS.has(name);
}

export interface LastResortDeps {
  logger: Pick<Logger, 'warn' | 'fatal'>;
  /** @default process.exit */
  exit?: (code: number) => void;
}

/** The two handlers, apart from `process` (tests call them directly). */
export function lastResortHandlers(deps: LastResortDeps) {
  const exit = deps.exit ?? ((code: number) => process.exit(code));
  const handle = (error: unknown, origin: 'uncaughtException' | 'unhandledRejection') => {
    if (isConfinedError(error)) {
      deps.logger.warn({ err: error, origin }, 'error confined to one connection or request: logged, still serving');
      return;
    }
    deps.logger.fatal({ err: error, origin }, 'unexpected error: exiting so a clean process takes over');
    exit(1);
  };
  return {
    uncaughtException: (error: unknown) => handle(error, 'uncaughtException'),
    unhandledRejection: (reason: unknown) => handle(reason, 'unhandledRejection'),
  };
}

/** Installs the handlers on this process. */
export function installLastResort(deps: LastResortDeps): void {
  const handlers = lastResortHandlers(deps);
  process.on('uncaughtException', handlers.uncaughtException);
  process.on('unhandledRejection', handlers.unhandledRejection);
}
