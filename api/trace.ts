import type { Request } from 'express';
import { newTraceId } from '../rules/ids';

const TRACEPARENT = /^[0-9a-f]{2}-([0-9a-f]{32})-[0-9a-f]{16}-[0-9a-f]{2}$/;
const TRACE_ID = /^[0-9a-f]{32}$/;
const ZERO_TRACE = '0'.repeat(32);

/** The caller's trace id (W3C `traceparent`, else `X-Trace-Id`), or a new one. */
export function traceIdOf(req: Request): string {
  const fromParent = TRACEPARENT.exec(req.get('traceparent')?.trim().toLowerCase() ?? '')?.[1];
  if (fromParent && fromParent !== ZERO_TRACE) return fromParent;
  const explicit = req.get('x-trace-id')?.trim().toLowerCase();
  if (explicit && TRACE_ID.test(explicit) && explicit !== ZERO_TRACE) return explicit;
  return newTraceId();
}
